import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const control = (method: string, path: string, body?: unknown) => t.request(method, `/__sandbox${path}`, { key: null, body });

describe('control plane /__sandbox', () => {
  it('GET /health is ready', async () => {
    const res = await control('GET', '/health');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'ok' });
  });

  it('GET /workspaces lists both workspaces with their fixture keys', async () => {
    const { data } = (await control('GET', '/workspaces')).json();
    expect(data.map((w: { mode: string }) => w.mode).sort()).toEqual(['live', 'sandbox']);
    const keys = data.flatMap((w: { keys: { key: string }[] }) => w.keys.map((k) => k.key));
    for (const key of Object.values(KEYS)) expect(keys).toContain(key);
  });

  it('POST /workspaces/:id/keys returns the key once; later listings do not show it', async () => {
    const created = await control('POST', `/workspaces/${t.sandboxWorkspaceId}/keys`, { name: 'CI key', scopes: ['products:read'] });
    expect(created.statusCode).toBe(201);
    const key = created.json().data;
    expect(key).toMatchObject({ name: 'CI key', scopes: ['products:read'], status: 'active', workspaceId: t.sandboxWorkspaceId });
    expect(key.key).toMatch(/^tcs_test_[A-Za-z0-9]{32}$/);
    expect(key).not.toHaveProperty('keyHash');
    expect((await t.request('GET', '/v1/products?limit=1', { key: key.key })).statusCode).toBe(200);
    const listed = (await control('GET', `/workspaces/${t.sandboxWorkspaceId}`)).json().data.keys.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({ id: key.id, key: null, keyPrefix: key.key.slice(0, 16) });
    expect((await control('POST', '/workspaces/wksp_nope/keys', {})).statusCode).toBe(404);
    expect((await control('POST', `/workspaces/${t.sandboxWorkspaceId}/keys`, { scopes: ['not a scope'] })).statusCode).toBe(400);
  });

  it('GET /clock and POST /clock/advance move the manual clock', async () => {
    const before = (await control('GET', '/clock')).json().data;
    expect(before.mode).toBe('manual');
    const after = (await control('POST', '/clock/advance', { ms: 90_000 })).json().data;
    expect(after.nowMs - before.nowMs).toBe(90_000);
    expect((await control('POST', '/clock/advance', { ms: -5 })).statusCode).toBe(400);
  });

  it('GET /workspaces/:id/export returns every record keyed by collection, without secrets', async () => {
    const res = await control('GET', `/workspaces/${t.liveWorkspaceId}/export`);
    const data = res.json().data;
    for (const name of [
      'products',
      'departures',
      'people',
      'policies',
      'galleryFolders',
      'galleryFiles',
      'organizations',
      'collections',
      'bookings',
      'forms',
    ]) {
      expect(Array.isArray(data[name]), name).toBe(true);
    }
    expect(data.products.length).toBeGreaterThanOrEqual(120);
    expect(res.body).not.toMatch(/keyHash|codeHash/);
    expect(res.body).not.toContain(KEYS.liveFull);
    expect((await control('GET', '/workspaces/wksp_nope/export')).statusCode).toBe(404);
  });

  it('POST /reset goes back to the fixtures', async () => {
    await t.request('POST', '/v1/forms', { body: { name: 'Temp', fields: [] } });
    const count = async () => (await control('GET', `/workspaces/${t.liveWorkspaceId}/export`)).json().data.forms.length;
    const withTemp = await count();
    const res = await control('POST', '/reset');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.reset).toBe(true);
    expect(await count()).toBe(withTemp - 1);
  });

  it('serves the OpenAPI document, marking inferred operations', async () => {
    const doc = (await control('GET', '/openapi.json')).json();
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.paths['/v1/products'].get.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'offset', 'status', 'type', 'sort']),
    );
    expect(doc.paths['/v1/products/{id}'].get['x-sandbox-inferred']).toBe(true);
    expect(JSON.stringify(doc.paths['/v1/products'].get.responses['200'])).toContain('x-sandbox-inferred');
    expect(doc.paths['/v1/products'].get['x-required-scope']).toBe('products:read');
  });

  it('needs a token when bound to a non-loopback host', async () => {
    const open = await createSandbox({ listen: false, host: '0.0.0.0', controlToken: 'secret-token-123', clock: 'manual' });
    try {
      expect((await open.app.inject({ url: '/__sandbox/health' })).statusCode).toBe(401);
      expect((await open.app.inject({ url: '/__sandbox/health', headers: { 'x-sandbox-token': 'wrong-token' } })).statusCode).toBe(401);
      expect((await open.app.inject({ url: '/__sandbox/health', headers: { 'x-sandbox-token': 'secret-token-123' } })).statusCode).toBe(200);
      expect((await open.app.inject({ url: '/__sandbox/health', headers: { authorization: 'Bearer secret-token-123' } })).statusCode).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
