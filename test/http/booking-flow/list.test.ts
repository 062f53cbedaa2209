import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookingListSchema } from '../../../src/resources/bookings/requests.ts';
import type { Booking } from '../../../src/resources/bookings/schemas.ts';
import type { Person } from '../../../src/resources/people/schemas.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { setup } from './helpers.ts';

/** GET /v1/bookings (API description, "Bookings"; "Envelopes": {data, meta: {total, limit, offset, hasMore}}). */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

const list = async (query = '') => {
  const res = await t.request('GET', `/v1/bookings${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return BookingListSchema.parse(res.json());
};
const all = () => t.sandbox.store.list<Booking>('bookings', t.liveWorkspaceId);

describe('GET /v1/bookings', () => {
  it('answers {data, meta: {total, limit, offset, hasMore}} with limit 20 by default, max 100', async () => {
    const body = await list();
    expect(Object.keys(body)).toEqual(['data', 'meta']);
    expect(Object.keys(body.meta)).toEqual(['total', 'limit', 'offset', 'hasMore']);
    expect(body.meta).toEqual({ total: all().length, limit: 20, offset: 0, hasMore: true });
    expect(body.data).toHaveLength(20);
    expect((await list('?limit=100&offset=20')).data).toHaveLength(100);
    const over = await t.request('GET', '/v1/bookings?limit=101');
    expect(over.statusCode).toBe(400);
    expect(over.json().code).toBe('VALIDATION_400');
    const last = await list(`?offset=${all().length - 5}`);
    expect(last.meta.hasMore).toBe(false);
    expect(last.data).toHaveLength(5);
  });

  it('filters by status; an unknown status is a 400', async () => {
    const cancelled = await list('?status=cancelled&limit=100');
    expect(cancelled.meta.total).toBe(all().filter((b) => b.status === 'cancelled').length);
    expect(cancelled.data.every((b) => b.status === 'cancelled')).toBe(true);
    expect((await t.request('GET', '/v1/bookings?status=lost')).statusCode).toBe(400);
  });

  it('q searches the code and the customer name and e-mail, case-insensitively', async () => {
    const sample = all()[7]!;
    const person = t.sandbox.store.get<Person>('people', t.liveWorkspaceId, sample.customerId!)!;
    expect((await list(`?q=${sample.code.toLowerCase()}`)).data.map((b) => b.id)).toEqual([sample.id]);
    const byMail = await list(`?q=${encodeURIComponent(person.email.toUpperCase())}&limit=100`);
    expect(byMail.data.map((b) => b.id)).toContain(sample.id);
    expect(byMail.data.every((b) => b.customerId === person.id)).toBe(true);
    const byName = await list(`?q=${encodeURIComponent(`${person.firstName} ${person.lastName}`)}&limit=100`);
    expect(byName.data.map((b) => b.id)).toContain(sample.id);
    expect((await list('?q=zzzz-no-such-booking')).meta).toMatchObject({ total: 0, hasMore: false });
  });

  it('sorts by createdAt or updatedAt with dir; a leading - means descending; default newest first', async () => {
    const desc = (await list('?limit=100')).data.map((b) => b.createdAt);
    expect(desc).toEqual([...desc].sort().reverse());
    const asc = (await list('?sort=updatedAt&dir=asc&limit=100')).data.map((b) => b.updatedAt);
    expect(asc).toEqual([...asc].sort());
    const minus = (await list('?sort=-updatedAt&limit=100')).data.map((b) => b.updatedAt);
    expect(minus).toEqual([...minus].sort().reverse());
    const dirWins = (await list('?sort=-createdAt&dir=asc&limit=100')).data.map((b) => b.createdAt);
    expect(dirWins).toEqual([...dirWins].sort());
    expect((await t.request('GET', '/v1/bookings?sort=total')).json().error).toMatch(/sort by one of createdAt, updatedAt/);
    expect((await t.request('GET', '/v1/bookings?dir=up')).statusCode).toBe(400);
  });

  it('accepts locale (en, ro), and another shape with an INFERRED_LIMIT warning', async () => {
    expect((await list('?locale=ro&limit=1')).data).toHaveLength(1);
    const odd = await t.request('GET', '/v1/bookings?locale=not a locale');
    expect(odd.statusCode).toBe(200);
    expect(String(odd.headers['x-sandbox-warning'])).toMatch(/^INFERRED_LIMIT: locale "not a locale"/);
  });
});
