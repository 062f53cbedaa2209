import { describe, expect, it } from 'vitest';
import { Generations } from '../../../src/storage/large-files/intern.ts';
import { RowInterner, sameLeaf, SHARED_LEAF_MAX_JSON } from '../../../src/storage/large-files/shared-leaves.ts';
import { openStore } from '../../../src/storage/index.ts';

/**
 * Rows share one frozen copy of each small
 * nested value they repeat (src/storage/large-files/shared-leaves.ts, docs/storage.md
 * "Memory per row"), which keeps RSS down at 100k bookings.
 */
const parsed = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('RowInterner', () => {
  it('gives equal small nested values of different rows one frozen copy, and leaves the rows themselves private', () => {
    const interner = new RowInterner();
    const row = (id: string) => parsed({ id, extras: { paxType: 'adult' }, metadata: {}, lines: [{ code: 'adult', quantity: 2 }], tags: [] });
    const a = row('psg_1');
    const b = row('psg_2');
    const expected = [structuredClone(a), structuredClone(b)];
    interner.internRow(a);
    interner.internRow(b);
    expect([a, b]).toEqual(expected);
    expect(b.extras).toBe(a.extras);
    expect(b.metadata).toBe(a.metadata);
    expect(b.lines).toBe(a.lines); // an array of shared lines is shared too
    expect(b.lines[0]).toBe(a.lines[0]);
    expect(b.tags).toBe(a.tags);
    for (const value of [a.extras, a.metadata, a.lines, a.lines[0], a.tags]) expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(a)).toBe(false);
    expect(() => {
      (a.extras as { paxType: string }).paxType = 'child';
    }).toThrow(TypeError); // a caller that mutates a stored row fails instead of changing every row
  });

  it('shares only what serialises the same: other key order, other values, other kinds stay apart', () => {
    const interner = new RowInterner();
    const rows = [
      parsed({ id: 'r1', v: { a: 1, b: 2 } }),
      parsed({ id: 'r2', v: { b: 2, a: 1 } }),
      parsed({ id: 'r3', v: { a: 1, b: 3 } }),
      parsed({ id: 'r4', v: { a: '1', b: 2 } }),
      parsed({ id: 'r5', v: [1, 2] }),
      parsed({ id: 'r6', v: { 0: 1, 1: 2 } }),
      parsed({ id: 'r7', v: { a: 1, b: 2 } }),
    ];
    const expected = structuredClone(rows);
    for (const row of rows) interner.internRow(row);
    expect(rows).toEqual(expected);
    expect(rows.map((r) => JSON.stringify(r))).toEqual(expected.map((r) => JSON.stringify(r)));
    expect(new Set(rows.map((r) => r.v)).size).toBe(6); // r7 alone shares r1's
    expect(rows[6]!.v).toBe(rows[0]!.v);
  });

  it('keeps large values and values with a private child private (not frozen)', () => {
    const interner = new RowInterner();
    const big = { text: 'x'.repeat(SHARED_LEAF_MAX_JSON) };
    const a = parsed({ id: 'r1', big, parent: { child: big, n: 1 }, many: Array.from({ length: 40 }, (_, i) => i) });
    const b = parsed({ id: 'r2', big, parent: { child: big, n: 1 }, many: Array.from({ length: 40 }, (_, i) => i) });
    interner.internRow(a);
    interner.internRow(b);
    expect(b.big).not.toBe(a.big);
    expect(b.parent).not.toBe(a.parent);
    expect(b.many).not.toBe(a.many);
    expect([a.big, a.parent, a.many].map((v) => Object.isFrozen(v))).toEqual([false, false, false]);
    expect({ ...a, id: 'r2' }).toEqual(b);
  });

  it('does not take a value whose hash collides with a different one', () => {
    // these two texts have the same 32-bit FNV-1a hash (found by search)
    const interner = new RowInterner();
    const a = parsed({ id: 'r1', v: { k: 'v462789' } });
    const b = parsed({ id: 'r2', v: { k: 'v679192' } });
    interner.internRow(a);
    interner.internRow(b);
    expect(a.v).toEqual({ k: 'v462789' });
    expect(b.v).toEqual({ k: 'v679192' });
    expect(sameLeaf(a.v, b.v)).toBe(false);
  });

  it('keeps a bounded table however many distinct values pass (churn cannot grow it)', () => {
    const interner = new RowInterner(100, 50);
    let most = 0;
    for (let i = 0; i < 1_000; i++) {
      interner.internRow(parsed({ id: `dlv_${i}`, headers: { 'webhook-id': `msg_${i}` } }));
      most = Math.max(most, interner.leaves);
    }
    expect(most).toBeLessThanOrEqual(100);
  });
});

describe('Generations', () => {
  it('carries a value used again into the new generation, and forgets the rest', () => {
    const table = new Generations<string, number>(2);
    table.set('a', 1);
    table.set('b', 2);
    table.set('c', 3); // young was full: {a, b} become old
    expect(table.get('a')).toBe(1); // carried into young: {c, a}
    table.set('d', 4); // young full again: {c, a} become old, {b} is gone
    expect(table.get('b')).toBeUndefined();
    expect(table.get('a')).toBe(1);
    expect(table.size).toBeLessThanOrEqual(4);
  });
});

describe('the store with shared nested values', () => {
  it('gives back exactly what was committed, with equal nested values shared and frozen', async () => {
    const { store } = await openStore({});
    const at = '2026-11-21T06:05:26.000Z';
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: `psg_${i}`,
      bookingId: `book_${i % 3}`,
      extras: i % 2 ? { paxType: 'adult' } : { paxType: 'child', dietary: 'vegan' },
      createdAt: at,
    }));
    const before = structuredClone(rows);
    await store.commit(rows.map((row) => ({ type: 'put' as const, collection: 'passengers', workspaceId: 'ws', row })));
    expect(rows).toEqual(before); // the caller's objects are untouched (copies were shared, not these)
    expect(Object.isFrozen(rows[1]!.extras)).toBe(false);
    const stored = store.list<(typeof rows)[number]>('passengers', 'ws');
    expect(stored).toEqual(rows);
    expect(new Set(stored.map((r) => r.extras)).size).toBe(2);
    expect(stored.every((r) => Object.isFrozen(r.extras))).toBe(true);
    expect(JSON.parse(store.serialize()).collections.passengers.ws.psg_3).toEqual(rows[3]);
    await store.close();
  });
});
