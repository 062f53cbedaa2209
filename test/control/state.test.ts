import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());
const control = (method: string, path: string, body?: unknown) => t!.request(method, `/__sandbox${path}`, { key: null, body });
const formCount = async () => (await control('GET', `/workspaces/${t!.liveWorkspaceId}/export`)).json().data.forms.length;

describe('rate-limit controls', () => {
  it('shows each workspace bucket, exhausts one so the next request gets 429', async () => {
    t = await testSandbox();
    await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    const buckets = (await control('GET', '/rate-limits')).json().data;
    expect(buckets.find((b: { id: string }) => b.id === t!.sandboxWorkspaceId)).toMatchObject({
      kind: 'workspace',
      limit: 100,
      remaining: 99,
      burst: 5,
      burstTokens: 4,
    });
    expect(buckets.find((b: { id: string }) => b.id === t!.liveWorkspaceId)).toMatchObject({ limit: 3000, remaining: 3000 });
    expect((await control('POST', '/rate-limits/exhaust', { workspaceId: t.sandboxWorkspaceId })).statusCode).toBe(200);
    const refused = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().retry_after).toBeGreaterThanOrEqual(1);
    expect((await control('POST', '/rate-limits/exhaust', {})).statusCode).toBe(400);
  });

  it('switches a workspace between live and sandbox limits', async () => {
    t = await testSandbox();
    const res = await control('POST', `/workspaces/${t.sandboxWorkspaceId}/mode`, { mode: 'live' });
    expect(res.json().data.mode).toBe('live');
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).headers['x-ratelimit-limit']).toBe('3000');
    await control('POST', `/workspaces/${t.sandboxWorkspaceId}/mode`, { mode: 'sandbox' });
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).headers['x-ratelimit-limit']).toBe('100');
  });
});

describe('snapshots and state', () => {
  it('save, change, restore: the change is gone; restoring an unknown name is a 404', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const before = await formCount();
    expect((await control('POST', '/snapshots', { name: 'clean' })).statusCode).toBe(201);
    await t.request('POST', '/v1/forms', { body: { name: 'Temporary', fields: [] } });
    expect(await formCount()).toBe(before + 1);
    const restored = await control('POST', '/snapshots/clean/restore');
    expect(restored.json().data).toMatchObject({ name: 'clean', restored: true });
    expect(await formCount()).toBe(before);
    expect((await control('GET', '/snapshots')).json().data.map((s: { name: string }) => s.name)).toEqual(['clean']);
    expect((await control('POST', '/snapshots/nope/restore')).statusCode).toBe(404);
    expect((await control('POST', '/snapshots', { name: 'bad name!' })).statusCode).toBe(400);
    expect((await control('DELETE', '/snapshots/clean')).json().data).toEqual({ name: 'clean', deleted: true });
    expect((await control('GET', '/snapshots')).json().data).toEqual([]);
    expect((await control('DELETE', '/snapshots/clean')).statusCode).toBe(404);
  });

  it('exports the whole state and imports it back', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const exported = await control('GET', '/state');
    const state = exported.json();
    expect(state.schemaVersion).toBe(1);
    await t.request('POST', '/v1/forms', { body: { name: 'After export', fields: [] } });
    const before = await formCount();
    const imported = await t.request('PUT', '/__sandbox/state', { key: null, payload: exported.body, headers: { 'content-type': 'application/json' } });
    expect(imported.statusCode).toBe(200);
    expect(await formCount()).toBe(before - 1);
    expect((await t.request('GET', '/v1/products?limit=1')).statusCode).toBe(200);
    const bad = await t.request('PUT', '/__sandbox/state', { key: null, body: { hello: 'world' } });
    expect(bad.statusCode).toBe(400);
  });
});

describe('clock set', () => {
  it('moves the clock to an absolute time; backwards only on a manual clock, where no timer runs again', async () => {
    t = await testSandbox();
    const res = await control('POST', '/clock/set', { at: '2026-03-01T00:00:00Z' });
    expect(res.json().data.now).toBe('2026-03-01T00:00:00.000Z');
    let fired = 0;
    t.sandbox.clock.schedule(Date.parse('2026-02-15T00:00:00Z'), () => (fired += 1)); // already due: runs on the next move
    await control('POST', '/clock/advance', { ms: 0 });
    expect(fired).toBe(1);
    const back = await control('POST', '/clock/set', { at: '2026-02-01T00:00:00Z' });
    expect(back.statusCode).toBe(200);
    expect(back.json().data.now).toBe('2026-02-01T00:00:00.000Z');
    await control('POST', '/clock/set', { at: '2026-03-01T00:00:00Z' });
    expect(fired).toBe(1);
  });

  it('refuses to set a real clock backwards, naming the way out', async () => {
    t = await testSandbox({ clock: 'real' });
    const back = await control('POST', '/clock/set', { at: '2000-01-01T00:00:00Z' });
    expect(back.statusCode).toBe(400);
    expect(back.json().error).toMatch(/A real clock cannot go backwards.*--clock manual/);
  });

  it('reset puts a time-travelled clock back to its start', async () => {
    t = await testSandbox();
    const start = t.sandbox.clock.now();
    await control('POST', '/clock/advance', { ms: 86_400_000 });
    const reset = await control('POST', '/reset');
    expect(reset.json().data.now).toBe(new Date(start).toISOString());
    expect(t.sandbox.clock.now()).toBe(start);
  });
});
