import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProductListSchema, ProductSchema } from '../../src/resources/products/schemas.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

type P = { id: string; title: string; status: string; type: string; createdAt: string; priceFrom: number };
const list = async (query = '') => {
  const res = await t.request('GET', `/v1/products${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { data: P[]; pagination: { total: number; limit: number; offset: number; has_more: boolean } };
};

describe('GET /v1/products (API description, Products; Envelopes)', () => {
  it('answers the default envelope {data, pagination: {total, limit, offset, has_more}} with limit 50', async () => {
    const body = await list();
    expect(Object.keys(body)).toEqual(['data', 'pagination']);
    expect(Object.keys(body.pagination)).toEqual(['total', 'limit', 'offset', 'has_more']);
    expect(body.pagination).toMatchObject({ limit: 50, offset: 0, has_more: true });
    expect(body.pagination.total).toBeGreaterThanOrEqual(120);
    expect(body.data).toHaveLength(50);
    ProductListSchema.parse(body);
    for (const p of body.data) expect(p.id).toMatch(/^prod_[0-9a-f-]{36}$/);
  });

  it('pages with limit and offset without overlap, up to 100 per page', async () => {
    const total = (await list()).pagination.total;
    const seen = new Set<string>();
    for (let offset = 0; offset < total; offset += 100) {
      const page = await list(`?limit=100&offset=${offset}`);
      expect(page.pagination.has_more).toBe(offset + 100 < total);
      for (const p of page.data) seen.add(p.id);
    }
    expect(seen.size).toBe(total);
    expect((await t.request('GET', '/v1/products?limit=101')).statusCode).toBe(400);
    const beyond = await list(`?offset=${total + 10}`);
    expect(beyond.data).toEqual([]);
    expect(beyond.pagination.has_more).toBe(false);
  });

  it('filters by status and type', async () => {
    const active = await list('?status=active&limit=100');
    expect(active.data.every((p) => p.status === 'active')).toBe(true);
    const tours = await list('?type=tour&limit=100');
    expect(tours.data.length).toBeGreaterThan(0);
    expect(tours.data.every((p) => p.type === 'tour')).toBe(true);
    const both = await list('?type=tour&status=active&limit=100');
    expect(both.pagination.total).toBeLessThanOrEqual(tours.pagination.total);
    expect((await t.request('GET', '/v1/products?status=bogus')).statusCode).toBe(400);
  });

  it('sorts ascending and with a leading - descending, in snake or camel case', async () => {
    const asc = (await list('?sort=priceFrom&limit=100')).data.map((p) => p.priceFrom);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    const desc = (await list('?sort=-created_at&limit=100')).data.map((p) => p.createdAt);
    expect(desc).toEqual([...desc].sort().reverse());
    const titles = (await list('?sort=title&limit=100')).data.map((p) => p.title);
    expect(titles).toEqual([...titles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const bad = await t.request('GET', '/v1/products?sort=-nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/sort by one of/);
  });

  it('GET /v1/products/:id answers {data: product}', async () => {
    const first = (await list('?limit=1')).data[0]!;
    const res = await t.request('GET', `/v1/products/${first.id}`);
    expect(res.statusCode).toBe(200);
    const product = ProductSchema.parse(res.json().data);
    expect(product).toEqual(first);
  });

  it('list responses follow catalog changes, and reset restores the fixtures', async () => {
    const fast = await testSandbox({ enforceRateLimits: false }); // its own: it edits and resets
    const get = async () => (await fast.request('GET', '/v1/products?limit=5&sort=title', { key: KEYS.liveFull })).json();
    const before = await get();
    const target = before.data[0];
    await fast.sandbox.store.commit([
      { type: 'put', collection: 'products', workspaceId: fast.liveWorkspaceId, row: { ...target, title: '000 Renamed tour' } },
    ]);
    const after = await get();
    expect(after.data[0]).toMatchObject({ id: target.id, title: '000 Renamed tour' });
    await fast.sandbox.reset();
    expect(await get()).toEqual(before);
    await fast.sandbox.stop();
  });
});
