import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { propertyRuns } from '../../setup/depth.ts';
import { packedInBackground } from '../../../src/storage/large-files/background-packing.ts';
import type { PackLimits } from '../../../src/storage/large-files/pack-policy.ts';
import { PackedRows } from '../../../src/storage/large-files/packed-rows.ts';
import { idHash, PageIndex } from '../../../src/storage/large-files/page-index.ts';
import type { Row } from '../../../src/storage/types.ts';

const SMALL: PackLimits = { packAfter: 4, hotRows: 3, pageBytes: 120 };

type Step = { kind: 'set'; id: string; value: number } | { kind: 'delete'; id: string } | { kind: 'copy' };

const ids = fc.constantFrom(...Array.from({ length: 16 }, (_, i) => `row_${i}`));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), id: ids, value: fc.integer({ min: 0, max: 999 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: ids }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'copy' as const }) },
);

const row = (id: string, value: number): Row => ({ id, value, text: `naïve ${value} ☃` });

const NEEDLES = ['"value":1', 'row_1', '☃', 'naïve 99', 'nothing', '[', '},', '}'];
const IDS = Array.from({ length: 16 }, (_, i) => `row_${i}`);

/**
 * The packed rows and the model read every way a store reads them, compared in one assertion: the
 * property below makes about a thousand of these comparisons, and vitest's bookkeeping of an
 * `expect` call cost more than the comparisons themselves at sixty calls each.
 */
function expectSame(packed: PackedRows, model: Map<string, Row>): void {
  const values = [...model.values()];
  const offsets = Array.from({ length: values.length + 2 }, (_, offset) => offset);
  expect({
    size: packed.size,
    entries: [...packed.entries()],
    // valuesFrom skips whole pages by their live counts: the same rows as values() from each position
    valuesFrom: offsets.map((offset) => [...packed.valuesFrom(offset)]),
    // matching parses only the pages whose text holds the needle: the same rows as a filter of values()
    matching: NEEDLES.map((needle) => [...packed.matching(needle)]),
    get: IDS.map((id) => packed.get(id)),
    has: IDS.map((id) => packed.has(id)),
  }).toEqual({
    size: model.size,
    entries: [...model.entries()],
    valuesFrom: offsets.map((offset) => values.slice(offset)),
    matching: NEEDLES.map((needle) => values.filter((row) => JSON.stringify(row).toLowerCase().includes(needle))),
    get: IDS.map((id) => model.get(id)),
    has: IDS.map((id) => model.has(id)),
  });
}

describe('PackedRows', () => {
  it('reads a packed row by its own id, whatever other rows of its page name it, and ids JSON escapes', () => {
    const odd = ['a', 'quote"d', 'new\nline', 'back\\slash', 'uni☃'];
    const rows = new Map<string, Row>();
    // every row names the others, before and after its own id, so the id's JSON string is on every line
    for (const id of odd) rows.set(id, { before: odd, id, after: { names: odd, [id]: id } });
    for (let i = 0; i < 8; i++) rows.set(`filler_${i}`, { id: `filler_${i}`, refs: odd });
    const packed = PackedRows.adopt(new Map(rows), 'now', { packAfter: 2, hotRows: 1, pageBytes: 400 });
    expect(packed.pageCount).toBeGreaterThan(1);
    for (const [id, row] of rows) expect(packed.get(id)).toEqual(row);
    expect(packed.get('missing')).toBeUndefined();
    expect([...packed.entries()]).toEqual([...rows.entries()]);
  });

  it('behaves as a Map: values, order (set keeps a place, delete and re-create goes last) and size', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 300 }), (steps) => {
        const model = new Map<string, Row>();
        const packed = PackedRows.adopt(new Map(), 'on-insert', SMALL);
        // copies taken along the way, with the model as it was: later steps must not reach them
        const copies: [PackedRows, Map<string, Row>][] = [];
        const deleted: [boolean, boolean][] = [];
        let current = packed;
        for (const s of steps) {
          if (s.kind === 'set') {
            model.set(s.id, row(s.id, s.value));
            current.set(s.id, row(s.id, s.value));
          } else if (s.kind === 'delete') {
            deleted.push([current.delete(s.id), model.delete(s.id)]);
          } else {
            copies.push([current, new Map(model)]);
            current = current.copy();
          }
        }
        // each delete answered as the model's did (whether the row was there)
        expect(deleted.map(([answer]) => answer)).toEqual(deleted.map(([, expected]) => expected));
        expectSame(current, model);
        for (const [copy, then] of copies) expectSame(copy, then);
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it('packs rows beyond the hot ones into compressed pages, and reads them back', () => {
    const rows = new Map(Array.from({ length: 500 }, (_, i) => [`row_${i}`, row(`row_${i}`, i)] as const));
    const packed = PackedRows.adopt(new Map(rows), 'now', { packAfter: 100, hotRows: 50, pageBytes: 2000 });
    expect(packed.pageCount).toBeGreaterThan(5);
    expect(packed.size).toBe(500);
    expect(packed.get('row_7')).toEqual(row('row_7', 7));
    expect([...packed.values()]).toEqual([...rows.values()]);
  });

  it('packs a loaded partition in the background, and never under a walk in progress', async () => {
    const limits = { packAfter: 100, hotRows: 50, pageBytes: 2000 };
    const rows = new Map(Array.from({ length: 2000 }, (_, i) => [`row_${i}`, row(`row_${i}`, i)] as const));
    const packed = PackedRows.adopt(new Map(rows), 'background', limits);
    expect(packed.pageCount).toBe(0); // nothing packed while the caller runs
    const walk = packed.entries();
    walk.next(); // a walk suspended in the tail, as a snapshot writer's between two chunks
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(packed.pageCount).toBe(0);
    const walked = [[...rows.entries()][0]!, ...walk];
    expect(walked).toEqual([...rows.entries()]);
    await packedInBackground();
    expect(packed.pageCount).toBeGreaterThan(20);
    expect([...packed.entries()]).toEqual([...rows.entries()]);
    expect(packed.get('row_3')).toEqual(row('row_3', 3));
  });

  it('folds changes to packed rows back into their pages once there are more than the hot rows', () => {
    const limits = { packAfter: 10, hotRows: 5, pageBytes: 200 };
    const packed = PackedRows.adopt(new Map(Array.from({ length: 60 }, (_, i) => [`row_${i}`, row(`row_${i}`, i)] as const)), 'now', limits);
    const model = new Map([...packed.entries()]);
    for (let i = 0; i < 40; i += 2) {
      packed.set(`row_${i}`, row(`row_${i}`, i + 1000));
      model.set(`row_${i}`, row(`row_${i}`, i + 1000));
      packed.delete(`row_${i + 1}`);
      model.delete(`row_${i + 1}`);
    }
    expectSame(packed, model);
  });
});

describe('PageIndex', () => {
  it('finds every page added for a hash, skips removed ones, and survives growth', () => {
    const index = new PageIndex(4);
    for (let i = 0; i < 1000; i++) index.add(idHash(`id_${i}`), i % 37);
    expect(index.size).toBe(1000);
    for (let i = 0; i < 1000; i += 3) expect(index.remove(idHash(`id_${i}`), i % 37)).toBe(true);
    for (let i = 0; i < 1000; i++) {
      const want = i % 3 === 0 ? -1 : i % 37;
      expect(index.find(idHash(`id_${i}`), (page) => page === i % 37)).toBe(want);
    }
    const copy = index.copy();
    copy.add(idHash('id_0'), 5);
    expect(copy.find(idHash('id_0'), (page) => page === 5)).toBe(5);
    expect(index.find(idHash('id_0'), (page) => page === 5)).toBe(-1);
  });
});

describe('background packing of a copy', () => {
  it("does not take pages packed from the tail for a file's bytes: a compaction's copies ask for no full GC", async () => {
    const { bulkRuns } = await import('../../../src/storage/heap.ts');
    const ended = vi.spyOn(bulkRuns, 'ended');
    try {
      const rows = new Map(Array.from({ length: 40 }, (_, i) => [`row_${i}`, row(`row_${i}`, i)] as const));
      const packed = PackedRows.adopt(rows, 'now', SMALL);
      expect(packed.pageCount).toBeGreaterThan(1);
      // a compaction copies each partition, and the copy has more than the hot rows in its tail
      const copy = packed.copy();
      for (let i = 40; i < 50; i++) copy.set(`row_${i}`, row(`row_${i}`, i));
      copy.copy();
      await packedInBackground();
      expect(ended).not.toHaveBeenCalled();
    } finally {
      ended.mockRestore();
    }
  });
});
