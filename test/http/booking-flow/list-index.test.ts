import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortRows } from '../../../src/core/pagination.ts';
import type { Booking } from '../../../src/resources/bookings/schemas.ts';
import type { Person } from '../../../src/resources/people/schemas.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { pickDeparture, setup } from './helpers.ts';

/**
 * GET /v1/bookings answers from an ordered index: every
 * page of every query is what sorting and filtering all the bookings gave,
 * after writes through the API and under the store, in a created
 * (copy-on-write) workspace and after its reset.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

interface Query {
  status?: string;
  q?: string;
  sort?: string;
  dir?: 'asc' | 'desc';
}

/** What q searched by scanning every booking, before the index: the reference the index must agree with. */
function searchText(booking: Booking, person: Person | undefined): string {
  const name = person ? [person.firstName, person.middleName, person.lastName].filter(Boolean).join(' ') : '';
  const short = person ? `${person.firstName} ${person.lastName}` : '';
  return [booking.code, name, short, person?.email ?? ''].join('\n').toLowerCase();
}

/** The list as it was computed before the index: every booking, filtered, sorted by id then by the field. */
function naive(ws: string, query: Query): { ids: string[]; total: number } {
  const { store } = t.sandbox;
  let rows = [...store.list<Booking>('bookings', ws)];
  if (query.status) rows = rows.filter((b) => b.status === query.status);
  const q = query.q?.toLowerCase();
  if (q) rows = rows.filter((b) => searchText(b, b.customerId ? store.get<Person>('people', ws, b.customerId) : undefined).includes(q));
  const field = (query.sort ?? 'createdAt').replace(/^-/, '');
  const descending = query.dir ? query.dir === 'desc' : query.sort ? query.sort.startsWith('-') : true;
  const sorted = sortRows(
    rows.sort((a, b) => (a.id < b.id ? -1 : 1)),
    { field, descending },
    (b, f) => b[f as keyof Booking],
  );
  return { ids: sorted.map((b) => b.id), total: sorted.length };
}

/** Every page of the query, 30 at a time, through the API. */
async function walk(key: string, query: Query): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 30) {
    const params = new URLSearchParams({ ...query, limit: '30', offset: String(offset) });
    const res = await t.request('GET', `/v1/bookings?${params}`, { key });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { data: Booking[]; meta: { total: number; hasMore: boolean } };
    ids.push(...body.data.map((b) => b.id));
    total = body.meta.total;
    if (!body.meta.hasMore) break;
  }
  return { ids, total };
}

async function expectAllQueriesMatch(ws: string, key: string): Promise<void> {
  const sample = t.sandbox.store.list<Booking>('bookings', ws).find((b) => b.customerId !== null)!;
  const person = t.sandbox.store.get<Person>('people', ws, sample.customerId!)!;
  const queries: Query[] = [
    {},
    { status: 'cancelled' },
    { status: 'confirmed', sort: 'updatedAt', dir: 'asc' },
    { sort: '-updatedAt' },
    { sort: 'createdAt' },
    { q: sample.code.slice(0, 5) },
    { q: person.lastName, status: 'pending' },
    { q: person.email.toUpperCase(), sort: 'updatedAt' },
  ];
  for (const query of queries) expect(await walk(key, query), JSON.stringify(query)).toEqual(naive(ws, query));
}

describe('GET /v1/bookings from the index', () => {
  it('pages through every query as a full sort and filter did, after API writes, store writes and a customer change', async () => {
    const ws = t.liveWorkspaceId;
    const key = 'tcs_live_aurora_full_0000000000000000000001';
    await expectAllQueriesMatch(ws, key);
    const { departure } = pickDeparture(t);
    const created = await t.request('POST', '/v1/bookings', { key, body: { departureId: departure.id, adults: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { data: Booking }).data.id;
    expect((await t.request('PATCH', `/v1/bookings/${id}`, { key, body: { status: 'cancelled' } })).statusCode).toBe(200);
    const [first, second] = t.sandbox.store.list<Booking>('bookings', ws);
    await t.sandbox.store.commit([{ type: 'delete', collection: 'bookings', workspaceId: ws, id: first!.id }]);
    const person = t.sandbox.store.get<Person>('people', ws, second!.customerId!)!;
    await t.sandbox.store.commit([{ type: 'put', collection: 'people', workspaceId: ws, row: { ...person, email: 'zq-renamed@example.test' } }]);
    await expectAllQueriesMatch(ws, key);
    expect((await walk(key, { q: 'zq-renamed' })).ids).toContain(second!.id);
  });

  it('in a created workspace: before and after its writes, and after its reset', async () => {
    const made = await t.request('POST', '/__sandbox/workspaces', { key: null, body: { name: 'index' } });
    expect(made.statusCode, made.body).toBe(201);
    const { id: ws, keys } = (made.json() as { data: { id: string; keys: { key: string }[] } }).data;
    const key = keys[0]!.key;
    await expectAllQueriesMatch(ws, key);
    const { departure } = pickDeparture(t, {}, ws);
    const created = await t.request('POST', '/v1/bookings', { key, body: { departureId: departure.id, adults: 1 } });
    expect(created.statusCode, created.body).toBe(201);
    const base = t.sandbox.store.list<Booking>('bookings', ws).find((b) => b.status === 'pending')!;
    expect((await t.request('PATCH', `/v1/bookings/${base.id}`, { key, body: { status: 'cancelled' } })).statusCode).toBe(200);
    await expectAllQueriesMatch(ws, key);
    expect((await t.request('POST', `/__sandbox/workspaces/${ws}/reset`, { key: null })).statusCode).toBe(200);
    await expectAllQueriesMatch(ws, key);
    expect(naive(ws, {}).ids).not.toContain((created.json() as { data: Booking }).data.id);
  });
});
