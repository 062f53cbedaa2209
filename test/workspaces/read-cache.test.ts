import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/core/response-cache.ts';
import type { OverlayStore } from '../../src/storage/overlay-store.ts';
import type { WorkspaceHandle } from '../../src/workspaces/handle.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * What created workspaces keep of what they read is
 * bounded (one budget of rewritten rows for all of them), what they wrote is
 * kept, a dropped cache is rebuilt the same, and a global reset frees it all.
 */
const BUDGET = 500;
let t: TestSandbox;
let workspaces: WorkspaceHandle[];
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false, workspaceCacheRows: BUDGET });
  workspaces = [];
  for (let i = 0; i < 12; i++) workspaces.push(await t.sandbox.createWorkspace({ name: `reader ${i}` }));
});
afterAll(() => t.sandbox.stop());

const stats = () => (t.sandbox.store as OverlayStore).cacheStats;
async function readPages(w: WorkspaceHandle): Promise<string[]> {
  const pages: string[] = [];
  for (const path of ['/v1/products?limit=100', '/v1/bookings?limit=100', '/v1/webhooks/subscriptions']) {
    const res = await t.request('GET', path, { key: w.keys[0]!.key });
    expect(res.statusCode, res.body).toBe(200);
    pages.push(res.body);
  }
  return pages;
}

describe('what created workspaces keep of what they read', () => {
  it('stays within one budget of rows for all of them, and a dropped cache reads back the same', async () => {
    const first = await readPages(workspaces[0]!);
    const oneWorkspace = stats().rows; // what reading these pages rewrites in one workspace
    expect(oneWorkspace).toBeGreaterThan(100);
    for (const w of workspaces.slice(1)) {
      await readPages(w);
      // past the budget, the workspaces read least recently are dropped; the one being read never is
      expect(stats().rows).toBeLessThanOrEqual(BUDGET + oneWorkspace);
    }
    expect(stats().views).toBeLessThan(workspaces.length); // 12 workspaces read 12 x ~250 rows; 500 are kept
    // the first workspace's rows were dropped: read again, rewritten from the template, the same answers
    expect(await readPages(workspaces[0]!)).toEqual(first);
  });

  it('keeps what a workspace wrote when its cache is dropped', async () => {
    const w = workspaces[1]!;
    const booking = (JSON.parse((await readPages(w))[1]!) as { data: { id: string }[] }).data[0]!;
    const patched = await t.request('PATCH', `/v1/bookings/${booking.id}`, { key: w.keys[0]!.key, body: { notes: 'written by worker 1' } });
    expect(patched.statusCode, patched.body).toBe(200);
    const bookings = (await readPages(w))[1];
    for (const other of workspaces.slice(2)) await readPages(other); // w's cache goes
    expect((await readPages(w))[1]).toBe(bookings);
    expect(bookings).toContain('written by worker 1');
  });

  it('is freed by a global reset, which does not copy every workspace again to look for pending work', async () => {
    for (const w of workspaces.slice(0, 3)) await readPages(w);
    expect(stats().rows).toBeGreaterThan(0);
    await t.sandbox.reset();
    // every created workspace is scanned for gallery files being deleted: none is copied for it
    expect(stats().rows).toBe(0);
    await readPages(workspaces[0]!); // and reads work as before
  });
});

describe('the product page cache', () => {
  it('is bounded in bytes as well as entries', () => {
    const cache = new ResponseCache(1000, 10_000);
    const page = { data: 'x'.repeat(3000) };
    for (let i = 0; i < 20; i++) cache.get(`workspace ${i}`, () => page);
    expect(cache.size.bytes).toBeLessThanOrEqual(10_000);
    expect(cache.size.entries).toBe(3);
    // a page larger than the whole budget is served, not kept
    expect(cache.get('large', () => ({ data: 'x'.repeat(20_000) })).length).toBeGreaterThan(20_000);
    expect(cache.size.entries).toBe(3);
  });
});
