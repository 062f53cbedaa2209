/**
 * The `q` search index of GET /v1/bookings (src/resources/bookings/search-text.ts)
 * answers what a scan of every booking's search text did, under
 * booking and person puts and deletes (a customer renamed, removed, a booking
 * moved to another customer, a booking naming a person not yet written),
 * replaceAll (a reset, an import), packed partitions, and whether the index
 * followed the writes from the first one or was built by a later search.
 * The HTTP side (a created workspace, its reset, pages and totals through the
 * API) is in list-index.test.ts.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyRuns } from '../../setup/depth.ts';
import { openStore, type Row } from '../../../src/storage/index.ts';
import { allowPacking } from '../../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../../src/storage/large-files/index.ts';
import { BookingSearchText, searchText } from '../../../src/resources/bookings/search-text.ts';
import type { Booking } from '../../../src/resources/bookings/schemas.ts';
import type { Person } from '../../../src/resources/people/schemas.ts';

afterEach(() => setPackLimits(DEFAULT_PACK_LIMITS));
allowPacking('bookings');
allowPacking('people');

/** mostly one workspace, so that a person names several bookings */
const ws = fc.constantFrom('ws_1', 'ws_1', 'ws_1', 'ws_2');
const name = fc.constantFrom('Ann', 'Anna', 'Bo', 'Nan', 'ÅSA');
const step = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('booking' as const),
      id: fc.integer({ min: 0, max: 20 }),
      code: fc.constantFrom('AUR-ANNA1', 'AUR-BO2', 'XYZ-NAN3', 'ab'),
      customer: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 6 }),
      ws: ws,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('person' as const),
      id: fc.integer({ min: 0, max: 3 }),
      first: name,
      middle: fc.option(name),
      last: name,
      ws: ws,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('delete' as const),
      collection: fc.constantFrom('bookings', 'people'),
      id: fc.integer({ min: 0, max: 20 }),
      ws: ws,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('search' as const),
      q: fc.constantFrom('a', 'an', 'ann', 'anna', 'nan', 'aur-', '\nbo', 'bo\n', 'åsa', 'ab\n\n', '@', 'x.test', 'zz', 'n a'),
      ws: ws,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('index' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), ws: ws }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const) }) },
);

describe('BookingSearchText', () => {
  it('matches what a scan of every booking and its customer matched, under writes, packed', async () => {
    setPackLimits({ packAfter: 6, hotRows: 3, pageBytes: 500 });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 30, maxLength: 120 }), async (steps) => {
        const { store } = await openStore({});
        let index: BookingSearchText | null = null;
        const scan = (ws: string, q: string) => {
          const ids: string[] = [];
          for (const b of store.list<Booking>('bookings', ws)) {
            if (searchText(b, b.customerId ? store.get<Person>('people', ws, b.customerId) : undefined).includes(q)) ids.push(b.id);
          }
          return ids.sort();
        };
        for (const s of steps) {
          if (s.kind === 'index') index ??= BookingSearchText.of(store);
          else if (s.kind === 'forget') index?.forget(s.ws);
          else if (s.kind === 'booking') {
            const row = { id: `book_${s.id}`, code: s.code, customerId: s.customer === null ? null : `ppl_${s.customer}` };
            await store.commit([{ type: 'put', collection: 'bookings', workspaceId: s.ws, row: row as unknown as Row }]);
          } else if (s.kind === 'person') {
            const row = { id: `ppl_${s.id}`, firstName: s.first, middleName: s.middle, lastName: s.last, email: `${s.first}.${s.id}@x.test` };
            await store.commit([{ type: 'put', collection: 'people', workspaceId: s.ws, row: row as unknown as Row }]);
          } else if (s.kind === 'delete') {
            await store.commit([{ type: 'delete', collection: s.collection, workspaceId: s.ws, id: `${s.collection === 'people' ? 'ppl' : 'book'}_${s.id}` }]);
          } else if (s.kind === 'replace') {
            // a reset or an import: every row replaced at once, with no change per row
            const bookings = Object.fromEntries(
              store
                .list<Booking>('bookings', 'ws_1')
                .slice(0, 8)
                .map((b) => [b.id, { ...b, code: `R-${b.code}` }]),
            );
            const people = Object.fromEntries(store.list<Person>('people', 'ws_1').map((p) => [p.id, { ...p, lastName: 'Renamed' }]));
            await store.replaceAll({
              bookings: { ws_1: bookings as unknown as Record<string, Row> },
              people: { ws_1: people as unknown as Record<string, Row> },
            });
          } else {
            index ??= BookingSearchText.of(store);
            expect(index.matching(s.ws, s.q).sort(), s.q).toEqual(scan(s.ws, s.q));
          }
        }
        await store.close();
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('refreshes every booking of a customer who is renamed, however many there are', async () => {
    const { store } = await openStore({});
    const index = BookingSearchText.of(store);
    const person = { id: 'ppl_1', firstName: 'Ann', middleName: null, lastName: 'Lee', email: 'ann@x.test' };
    const put = (collection: string, row: object) => store.commit([{ type: 'put', collection, workspaceId: 'ws_1', row: row as unknown as Row }]);
    await put('people', person);
    for (const n of [1, 2, 3, 4]) await put('bookings', { id: `book_${n}`, code: `C${n}`, customerId: 'ppl_1' });
    expect(index.matching('ws_1', 'ann lee').sort()).toEqual(['book_1', 'book_2', 'book_3', 'book_4']);
    await put('people', { ...person, lastName: 'Moss' });
    expect(index.matching('ws_1', 'ann lee')).toEqual([]);
    expect(index.matching('ws_1', 'ann moss').sort()).toEqual(['book_1', 'book_2', 'book_3', 'book_4']);
    await put('bookings', { id: 'book_2', code: 'C2', customerId: null });
    await store.commit([{ type: 'delete', collection: 'people', workspaceId: 'ws_1', id: 'ppl_1' }]);
    expect(index.matching('ws_1', 'ann')).toEqual([]);
    expect(index.matching('ws_1', 'c').sort()).toEqual(['book_1', 'book_2', 'book_3', 'book_4']);
    await store.close();
  });
});
