/**
 * The ordered index (src/storage/ordered-index.ts) answers every
 * page as sorting and filtering the whole partition did (sortRows after a sort
 * by id, src/core/pagination.ts), under puts, moves, deletes and replaceAll,
 * with partitions packed from 8 rows on, and whether it was built before the
 * writes (kept from the change feed) or after them (one scan).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyRuns } from '../setup/depth.ts';
import { sortRows } from '../../src/core/pagination.ts';
import { openStore, type Row } from '../../src/storage/index.ts';
import { OrderedIndex } from '../../src/storage/ordered-index.ts';
import { allowPacking } from '../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../src/storage/large-files/index.ts';
import { SortedEntries } from '../../src/storage/sorted-entries.ts';
import { del, put } from './helpers.ts';

const TINY = { packAfter: 8, hotRows: 4, pageBytes: 600 };
const BLOCK = SortedEntries.BLOCK;
const AMONG_WALK = OrderedIndex.AMONG_WALK;
afterEach(() => {
  setPackLimits(DEFAULT_PACK_LIMITS);
  SortedEntries.BLOCK = BLOCK;
  OrderedIndex.AMONG_WALK = AMONG_WALK;
});
allowPacking('bookings');

type Booking = { id: string; at: string | null; status: string; product: string };
type Entry = Booking;
const spec = {
  entry: (row: Booking): Entry => ({ id: row.id, at: row.at, status: row.status, product: row.product }),
  orders: { at: (e: Entry) => e.at, id: (e: Entry) => e.id },
  bucket: (e: Entry) => e.status,
};

/** What the list did before the index: every row, filtered, sorted by id then by the field, sliced. */
function naive(
  rows: readonly Booking[],
  q: { order: 'at' | 'id'; descending: boolean; bucket?: string | undefined; product?: string | undefined; offset: number; limit: number },
) {
  let all = [...rows];
  if (q.bucket !== undefined) all = all.filter((r) => r.status === q.bucket);
  if (q.product !== undefined) all = all.filter((r) => r.product === q.product);
  const sorted = sortRows(
    all.sort((a, b) => (a.id < b.id ? -1 : 1)),
    { field: q.order, descending: q.descending },
    (r, f) => r[f as keyof Booking],
  );
  return { ids: sorted.slice(q.offset, q.offset + q.limit).map((r) => r.id), total: sorted.length };
}

const step = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      id: fc.integer({ min: 0, max: 30 }),
      at: fc.option(fc.integer({ min: 0, max: 6 })),
      status: fc.constantFrom('pending', 'confirmed', 'cancelled'),
      product: fc.constantFrom('p1', 'p2'),
      ws: fc.constantFrom('ws_1', 'ws_2'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }), ws: fc.constantFrom('ws_1', 'ws_2') }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('page' as const),
      order: fc.constantFrom('at' as const, 'id' as const),
      descending: fc.boolean(),
      bucket: fc.option(fc.constantFrom('pending', 'confirmed', 'cancelled', 'other'), { nil: undefined }),
      product: fc.option(fc.constantFrom('p1', 'p2'), { nil: undefined }),
      offset: fc.integer({ min: 0, max: 20 }),
      limit: fc.integer({ min: 1, max: 12 }),
      ws: fc.constantFrom('ws_1', 'ws_2'),
      among: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 35 })), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('index' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const) }) },
);

describe('OrderedIndex', () => {
  // pageAmong sorts the picked entries (AMONG_WALK 0) or walks the whole order (1e9)
  it.each([
    [2, 0],
    [BLOCK, 1e9],
    [2, 1e9],
  ])(
    'answers every page and total as a sort and filter of every row, under writes, packed, in blocks of %i, pageAmong walking past 1 in %i picked',
    async (block, walk) => {
      setPackLimits(TINY);
      SortedEntries.BLOCK = block;
      OrderedIndex.AMONG_WALK = walk;
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 40, maxLength: 160 }), async (steps) => {
          const { store } = await openStore({});
          let index: OrderedIndex<Booking, Entry> | null = null;
          const model = new Map<string, Map<string, Booking>>([
            ['ws_1', new Map()],
            ['ws_2', new Map()],
          ]);
          for (const s of steps) {
            if (s.kind === 'index') index ??= new OrderedIndex<Booking, Entry>(store, 'bookings', spec);
            else if (s.kind === 'put') {
              const row: Booking = { id: `book_${s.id}`, at: s.at === null ? null : `2026-01-0${s.at}`, status: s.status, product: s.product };
              model.get(s.ws)!.set(row.id, row);
              await store.commit([put('bookings', s.ws, row as unknown as Row)]);
            } else if (s.kind === 'delete') {
              model.get(s.ws)!.delete(`book_${s.id}`);
              await store.commit([del('bookings', s.ws, `book_${s.id}`)]);
            } else if (s.kind === 'replace') {
              const rows = Object.fromEntries([...model.get('ws_1')!].slice(0, 20));
              model.set('ws_1', new Map(Object.entries(rows)));
              model.set('ws_2', new Map());
              await store.replaceAll({ bookings: { ws_1: rows as unknown as Record<string, Row> } });
            } else {
              index ??= new OrderedIndex<Booking, Entry>(store, 'bookings', spec);
              const filter = s.product === undefined ? undefined : (e: Entry) => e.product === s.product;
              const query = { order: s.order, descending: s.descending, bucket: s.bucket, filter, offset: s.offset, limit: s.limit };
              const rows = [...model.get(s.ws)!.values()];
              if (s.among === undefined) expect(index.page(s.ws, query)).toEqual(naive(rows, s));
              else {
                // a search's matches: some ids of rows, some of no row
                const ids = s.among.map((n) => `book_${n}`);
                expect(index.pageAmong(s.ws, ids, query)).toEqual(
                  naive(
                    rows.filter((r) => ids.includes(r.id)),
                    s,
                  ),
                );
              }
            }
          }
          await store.close();
        }),
        { numRuns: propertyRuns(200) },
      );
    },
  );

  it('is built at the first write of a small partition, so a later page scans nothing', async () => {
    const { store } = await openStore({});
    const index = new OrderedIndex<Booking, Entry>(store, 'bookings', spec);
    expect(index.isBuilt('ws_1')).toBe(false);
    await store.commit([put('bookings', 'ws_1', { id: 'b1', at: 'x', status: 'pending', product: 'p1' })]);
    expect(index.isBuilt('ws_1')).toBe(true);
    await store.commit([put('bookings', 'ws_1', { id: 'b2', at: 'y', status: 'pending', product: 'p1' })]);
    expect(index.page('ws_1', { order: 'at', descending: true, offset: 0, limit: 5 })).toEqual({ ids: ['b2', 'b1'], total: 2 });
    await store.close();
  });
});
