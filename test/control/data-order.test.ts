import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/** Issue 37: a page of a collection newest first (`order=newest`), so a booking just made is on the first page. */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

const page = async (query: string) =>
  (await t.request('GET', `/__sandbox/workspaces/${t.sandboxWorkspaceId}/collections/bookings?${query}`, { key: null })).json().data;

describe('order=newest', () => {
  it('lists the newest first, pages from the end, and leaves the stored order the default', async () => {
    const made = await t.request('POST', '/v1/bookings', {
      key: KEYS.sandboxFull,
      body: { departureId: 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac', adults: 1 },
    });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id as string;
    const stored = await page('limit=500');
    const ids = stored.rows.map((r: { id: string }) => r.id);
    expect(ids.at(-1)).toBe(id);

    const newest = await page('limit=10&order=newest');
    expect(newest.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(-10).reverse());
    expect(newest.total).toBe(stored.total);
    const next = await page('limit=10&offset=10&order=newest');
    expect(next.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(-20, -10).reverse());
    const last = await page(`limit=10&offset=${stored.total - 3}&order=newest`);
    expect(last.rows.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 3).reverse());
    expect((await page(`limit=10&offset=${stored.total}&order=newest`)).rows).toEqual([]);
  });
});
