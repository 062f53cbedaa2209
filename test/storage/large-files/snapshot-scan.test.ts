/**
 * A large file opens without parsing the rows of its large
 * packable partitions (src/storage/large-files/snapshot-scan.ts). They stay spans of the
 * file's bytes until deflated into pages in the background, and read, write,
 * walk and compact as the rows of a parsed file do. Structure is asserted
 * (which rows were parsed, which pages are still in the file's bytes); the
 * time it saves is measured in `npm run bench -- --only bigstart`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { propertyRuns } from '../../setup/depth.ts';
import { packedInBackground } from '../../../src/storage/large-files/background-packing.ts';
import { applyOps, stateFromCollections, type Partition } from '../../../src/storage/codec.ts';
import { openStore } from '../../../src/storage/index.ts';
import { allowPacking } from '../../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../../src/storage/large-files/pack-policy.ts';
import { PackedRows } from '../../../src/storage/large-files/packed-rows.ts';
import { RawRows, scanSnapshot } from '../../../src/storage/large-files/snapshot-scan.ts';
import { parseSnapshotBytes } from '../../../src/storage/snapshot-text.ts';
import type { Row } from '../../../src/storage/types.ts';
import { del, put, tempDir } from '../helpers.ts';

const TINY = { packAfter: 8, hotRows: 4, pageBytes: 300 };
allowPacking('bookings');
afterEach(() => setPackLimits(DEFAULT_PACK_LIMITS));

const booking = (i: number): Row => ({ id: `bkg_${i}`, code: `C${i}`, note: i % 7 === 0 ? 'line\nbreak "quoted" \\ é' : 'plain', items: [{ n: i }], at: null });

/** The text the sandbox writes for these collections (snapshot-text.ts: compact, JSON.stringify of each row). */
const fileText = (collections: Record<string, Record<string, Record<string, Row>>>, seq = 3) => JSON.stringify({ schemaVersion: 1, seq, collections });

const rowsOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`bkg_${i}`, booking(i)]));

function loadedPartition(text: string): Partition {
  const snapshot = parseSnapshotBytes(Buffer.from(text), 'db.json');
  return stateFromCollections(snapshot.collections, snapshot.seq, (problem) => new Error(problem))
    .get('bookings')!
    .get('ws_1')!;
}

describe('a snapshot file scanned, not parsed', () => {
  it('keeps the rows of a large packable partition as spans of the file, and parses the small and the other partitions', () => {
    setPackLimits(TINY);
    const scanned = scanSnapshot(Buffer.from(fileText({ bookings: { ws_1: rowsOf(40), ws_2: rowsOf(3) }, products: { ws_1: rowsOf(40) } })))!;
    const collections = scanned.collections as Record<string, Record<string, unknown>>;
    expect(scanned.seq).toBe(3);
    expect(collections.bookings!.ws_1).toBeInstanceOf(RawRows);
    expect((collections.bookings!.ws_1 as RawRows).size).toBe(40);
    expect(collections.bookings!.ws_2).toEqual(rowsOf(3));
    expect(collections.products!.ws_1).toEqual(rowsOf(40)); // not packable: parsed
  });

  it('parses none of the packed rows at open: only the hot ones, which stay objects', () => {
    setPackLimits(TINY);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const partition = loadedPartition(fileText({ bookings: { ws_1: rowsOf(40) } }));
      // every parse that saw a booking's text: one row each, the newest hotRows of them
      const parsedRows = parse.mock.calls.map(([text]) => String(text)).filter((text) => text.includes('"bkg_'));
      expect(parsedRows.map((text) => (JSON.parse(text) as Row).id)).toEqual(['bkg_36', 'bkg_37', 'bkg_38', 'bkg_39']);
      expect(partition.rows).toBeInstanceOf(PackedRows);
      expect((partition.rows as PackedRows).rawPages).toBe((partition.rows as PackedRows).pageCount);
      expect((partition.rows as PackedRows).rawPages).toBeGreaterThan(1);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads, walks and searches as the parsed rows, before and after the background deflates the pages', async () => {
    setPackLimits(TINY);
    const rows = rowsOf(40);
    const partition = loadedPartition(fileText({ bookings: { ws_1: rows } }));
    const packed = partition.rows as PackedRows;
    const check = () => {
      expect(packed.size).toBe(40);
      expect([...packed.entries()]).toEqual(Object.entries(rows));
      for (const [id, row] of Object.entries(rows)) expect(packed.get(id)).toEqual(row);
      expect(packed.get('bkg_40')).toBeUndefined();
      expect([...packed.valuesFrom(25)]).toEqual(Object.values(rows).slice(25));
      expect([...packed.matching('c21')].map((row) => row?.id)).toEqual(['bkg_21']);
    };
    check();
    expect(packed.rawPages).toBeGreaterThan(0);
    await packedInBackground();
    expect(packed.rawPages).toBe(0);
    check();
  });

  it('behaves as a Map under puts and deletes, its pages raw or deflated, copies included', async () => {
    setPackLimits(TINY);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 50 }), fc.boolean()), { maxLength: 40 }),
        fc.boolean(),
        async (ops, deflateFirst) => {
          const model = new Map(Object.entries(rowsOf(30)));
          const partition = loadedPartition(fileText({ bookings: { ws_1: Object.fromEntries(model) } }));
          const state = new Map([['bookings', new Map([['ws_1', partition]])]]);
          if (deflateFirst) await packedInBackground();
          const before = partition.rows as PackedRows;
          const copy = before.copy();
          const copied = [...model];
          let seq = 4;
          for (const [isPut, n, changed] of ops) {
            const id = `bkg_${n}`;
            if (isPut) {
              // id not first, now and then: its snapshot member is then written from the parsed row
              const row = changed ? { ...booking(n), changed } : { first: 'not the id', ...booking(n) };
              applyOps(state, [put('bookings', 'ws_1', row)], seq++);
              model.set(id, row);
            } else {
              applyOps(state, [del('bookings', 'ws_1', id)], seq++);
              model.delete(id);
            }
          }
          const members = (rows: Iterable<[string, Row]>) => [...rows].map(([id, row]) => `${JSON.stringify(id)}:${JSON.stringify(row)}`).join(',');
          const check = () => {
            expect([...partition.rows.entries()]).toEqual([...model]);
            expect([...copy.entries()]).toEqual(copied);
            // the snapshot's text of the rows, copied from the pages, is what serialising each row gives
            expect([...(partition.rows as PackedRows).jsonMembers()].join(',')).toBe(members(model));
            expect([...copy.jsonMembers()].join(',')).toBe(members(copied));
          };
          check();
          await packedInBackground();
          check();
        },
      ),
      { numRuns: propertyRuns(60) },
    );
  });

  it.each([
    ['a row whose id is not its first field', (rows: Record<string, Row>) => ({ ...rows, bkg_5: { code: 'C5', id: 'bkg_5' } })],
    ['a row with a raw newline (a hand-formatted file)', null],
  ])('parses a partition with %s, as before', (_, change) => {
    setPackLimits(TINY);
    const rows = rowsOf(40);
    const text = change ? fileText({ bookings: { ws_1: change(rows) } }) : fileText({ bookings: { ws_1: rows } }).replace('{"id":"bkg_3",', '{"id":"bkg_3",\n');
    const partition = loadedPartition(text);
    expect((partition.rows as PackedRows).rawPages).toBe(0);
    expect(partition.rows.get('bkg_5')).toEqual(change ? { code: 'C5', id: 'bkg_5' } : rows.bkg_5);
  });

  it('refuses a row whose id is not its key in one line, as a parsed file', () => {
    setPackLimits(TINY);
    const rows = { ...rowsOf(40), bkg_9: booking(10) };
    expect(() => loadedPartition(fileText({ bookings: { ws_1: rows } }))).toThrow(
      'collections["bookings"]["ws_1"]["bkg_9"] has id "bkg_10" (must equal its key)',
    );
  });

  it.each([
    ['a file cut short', (text: string) => text.slice(0, -40), 'the file is not valid JSON'],
    ['a repeated partition', (text: string) => text.replace('"ws_1":', '"ws_1":{},"ws_1":'), null],
    ['pretty-printed JSON', (text: string) => JSON.stringify(JSON.parse(text), null, 2), null],
  ])('leaves %s to the whole parse', (_, change, error) => {
    setPackLimits(TINY);
    const text = change(fileText({ bookings: { ws_1: rowsOf(40) } }));
    expect(scanSnapshot(Buffer.from(text))).toBeNull();
    if (error) expect(() => parseSnapshotBytes(Buffer.from(text), 'db.json')).toThrow(error);
    else expect(loadedPartition(text).rows.size).toBe(40);
  });

  it('opens, writes, compacts and reopens a store to the same rows, its file the same bytes as a parsed one would give', async () => {
    setPackLimits(TINY);
    const path = join(tempDir(), 'db.json');
    const rows = rowsOf(60);
    writeFileSync(path, fileText({ bookings: { ws_1: rows }, products: { ws_1: rowsOf(2) } }));
    const first = await openStore({ path, fsync: false });
    await first.store.commit([
      put('bookings', 'ws_1', { ...booking(3), note: 'changed' }),
      del('bookings', 'ws_1', 'bkg_4'),
      put('bookings', 'ws_1', booking(99)),
    ]);
    await first.store.compact();
    await first.store.close();
    const expected = { ...rows, bkg_3: { ...booking(3), note: 'changed' }, bkg_99: booking(99) };
    delete (expected as Record<string, Row>).bkg_4;
    expect(readFileSync(path, 'utf8')).toBe(fileText({ bookings: { ws_1: expected }, products: { ws_1: rowsOf(2) } }, 4));
    const again = await openStore({ path, fsync: false });
    expect(again.store.list('bookings', 'ws_1')).toEqual(Object.values(expected));
    await again.store.close();
  });
});
