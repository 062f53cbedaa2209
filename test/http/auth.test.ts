import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

const INTERNAL = 'internal-service-key-0123456789abcdef';
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ internalApiKey: INTERNAL, enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

async function newKey(scopes: string[] | null, workspaceId = t.liveWorkspaceId): Promise<{ id: string; key: string }> {
  const res = await t.request('POST', `/__sandbox/workspaces/${workspaceId}/keys`, { key: null, body: { name: 'test', scopes } });
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

describe('authentication (API description, Authentication 1-3, 11)', () => {
  it.each([
    ['no Authorization header', null, undefined],
    ['an unknown key', 'tcs_live_not_a_real_key_at_all_000000000', undefined],
    ['a non-Bearer scheme', null, { authorization: `Basic ${KEYS.liveFull}` }],
    ['a key in the query string only', null, undefined],
  ])('%s gets 401 {error: "Unauthorized"}', async (_name, key, headers) => {
    const res = await t.request('GET', `/v1/products?api_key=${KEYS.liveFull}`, { key, ...(headers ? { headers } : {}) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Unauthorized' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('the scheme is case-insensitive: "bearer" and "BEARER" work as "Bearer" does (RFC 7235; issue 28)', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const res = await t.request('GET', '/v1/products?limit=1', { key: null, headers: { authorization: `${scheme} ${KEYS.liveFull}` } });
      expect(res.statusCode, scheme).toBe(200);
    }
  });

  it('a workspace key only ever sees its own workspace', async () => {
    const live = await t.request('GET', '/v1/products?limit=100', { key: KEYS.liveFull });
    const sbx = await t.request('GET', '/v1/products?limit=100', { key: KEYS.sandboxFull });
    const liveIds = new Set(live.json().data.map((p: { id: string }) => p.id));
    expect(sbx.json().data.length).toBeGreaterThan(0);
    for (const p of sbx.json().data) expect(liveIds.has(p.id)).toBe(false);
    const foreign = sbx.json().data[0].id;
    expect((await t.request('GET', `/v1/products/${foreign}`, { key: KEYS.liveFull })).statusCode).toBe(404);
  });
});

describe('scopes (Authentication 4-5)', () => {
  it('a products:read key reads products but gets 403 {error: "Forbidden"} on writes', async () => {
    expect((await t.request('GET', '/v1/products', { key: KEYS.liveRead })).statusCode).toBe(200);
    const res = await t.request('POST', '/v1/forms', { key: KEYS.liveRead, body: { name: 'x', fields: [] } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'Forbidden' });
  });

  it.each([
    [['products:*'], 200],
    [['*:read'], 200],
    [['*'], 200],
    [['forms:write'], 403],
    [['products:write'], 403],
  ])('scopes %j on GET /v1/products -> %i', async (scopes, status) => {
    const { key } = await newKey(scopes);
    expect((await t.request('GET', '/v1/products', { key })).statusCode).toBe(status);
  });

  it('403 comes before body validation', async () => {
    const res = await t.request('POST', '/v1/forms', { key: KEYS.liveRead, body: { nonsense: true } });
    expect(res.statusCode).toBe(403);
  });
});

describe('revocation (Authentication 9, States: Workspace API key)', () => {
  it('the very next request with a revoked key gets 401, and it cannot be revoked twice', async () => {
    const { id, key } = await newKey(null);
    expect((await t.request('GET', '/v1/products', { key })).statusCode).toBe(200);
    const revoke = await t.request('DELETE', `/__sandbox/keys/${id}`, { key: null });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json().data).toMatchObject({ id, status: 'revoked' });
    expect((await t.request('GET', '/v1/products', { key })).statusCode).toBe(401);
    expect((await t.request('DELETE', `/__sandbox/keys/${id}`, { key: null })).statusCode).toBe(409);
    expect((await t.request('DELETE', '/__sandbox/keys/wkey_nope', { key: null })).statusCode).toBe(404);
  });
});

describe('internal service keys (Authentication 6)', () => {
  it('work with x-workspace-id naming the workspace', async () => {
    const res = await t.request('GET', '/v1/products?limit=1', { key: INTERNAL, headers: { 'x-workspace-id': t.sandboxWorkspaceId } });
    expect(res.statusCode).toBe(200);
    const own = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(res.json().pagination.total).toBe(own.json().pagination.total);
  });

  it('without the header get 400, with an unknown workspace 404', async () => {
    const missing = await t.request('GET', '/v1/products', { key: INTERNAL });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatch(/x-workspace-id/);
    const unknown = await t.request('GET', '/v1/products', { key: INTERNAL, headers: { 'x-workspace-id': 'wksp_nope' } });
    expect(unknown.statusCode).toBe(404);
  });

  it('are disabled unless configured', async () => {
    const plain = await testSandbox();
    const res = await plain.request('GET', '/v1/products', { key: INTERNAL, headers: { 'x-workspace-id': plain.liveWorkspaceId } });
    expect(res.statusCode).toBe(401);
    await plain.sandbox.stop();
  });
});

describe('keys after the state is replaced (issue 28)', () => {
  it('a key that exists only in imported state authenticates right after PUT /__sandbox/state', async () => {
    const other = await testSandbox({ enforceRateLimits: false });
    try {
      const created = await other.request('POST', `/__sandbox/workspaces/${other.liveWorkspaceId}/keys`, {
        key: null,
        body: { name: 'imported', scopes: null },
      });
      expect(created.statusCode).toBe(201);
      const { key } = created.json().data as { key: string };
      const exported = await other.request('GET', '/__sandbox/state', { key: null });
      expect((await t.request('GET', '/v1/products?limit=1', { key })).statusCode).toBe(401); // not known here yet
      const imported = await t.request('PUT', '/__sandbox/state', { key: null, payload: exported.body, headers: { 'content-type': 'application/json' } });
      expect(imported.statusCode).toBe(200);
      expect((await t.request('GET', '/v1/products?limit=1', { key })).statusCode).toBe(200);
    } finally {
      await other.sandbox.stop();
    }
  });
});
