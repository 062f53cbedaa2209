import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WORKSPACES } from '../../src/core/tenancy.ts';
import { GLOBAL_PARTITION } from '../../src/storage/types.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { issueKey, orgOf } from './areas/helpers.ts';

/**
 * Authentication (API description, "Authentication"; src/core/auth.ts): who a key is, what its
 * scopes allow, revocation and expiry with the edge-cache lag, internal service keys, keys whose
 * workspace is gone, an organization key's own rate policy, what the request log and records say
 * of each kind of key, and the key index across writes and a state import. The reasons of each
 * 401 and 403 are in reasons.test.ts too.
 */
const INTERNAL = 'internal-service-key-0123456789abcdef';
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ internalApiKey: INTERNAL, enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const reasonOf = (res: { headers: Record<string, unknown> }) => res.headers['x-sandbox-reason'];

async function createdWorkspace(s: TestSandbox, name: string) {
  const made = await s.request('POST', '/__sandbox/workspaces', { key: null, body: { name } });
  expect(made.statusCode, made.body).toBe(201);
  return made.json().data as { id: string; keys: { id: string; key: string; keyPrefix: string }[] };
}

/** The request log's entry of the last request. */
async function lastLogged(s: TestSandbox) {
  const log = (await s.request('GET', '/__sandbox/requests?limit=5', { key: null })).json().data as { path: string; keyPrefix: string | null }[];
  return log.find((entry) => !entry.path.startsWith('/__sandbox'))!;
}

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

  it('the scheme is case-insensitive: "bearer" and "BEARER" work as "Bearer" does (RFC 7235)', async () => {
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

describe('the Bearer header, spelt exactly', () => {
  const get = (authorization: string) => t.request('GET', '/v1/products?limit=1', { key: null, headers: { authorization } });

  it('the scheme opens the header: a word ending in "Bearer" is another scheme', async () => {
    for (const authorization of [`NotBearer ${KEYS.liveFull}`, `Token Bearer ${KEYS.liveFull}`]) {
      const res = await get(authorization);
      expect(res.statusCode, authorization).toBe(401);
      expect(reasonOf(res), authorization).toMatch(/^NOT_BEARER /);
    }
  });

  it('one or more spaces after the scheme, and trailing white space, are accepted', async () => {
    expect((await get(`Bearer  ${KEYS.liveFull}`)).statusCode).toBe(200);
    expect((await get(`Bearer    ${KEYS.liveFull}`)).statusCode).toBe(200);
    expect((await get(`Bearer ${KEYS.liveFull} `)).statusCode).toBe(200);
    expect((await get(`Bearer ${KEYS.liveFull}\t`)).statusCode).toBe(200);
  });

  it('anything after the key is a malformed header, not a key', async () => {
    const res = await get(`Bearer ${KEYS.liveFull} extra`);
    expect(res.statusCode).toBe(401);
    expect(reasonOf(res)).toMatch(/^MALFORMED_BEARER /);
  });

  it('an empty header is a missing one', async () => {
    const res = await get('');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Unauthorized' });
  });
});

describe('what each kind of key is called', () => {
  it('the request log names a workspace key by its prefix, an organization key as org_<prefix>, the internal key as internal', async () => {
    await t.request('GET', '/v1/products?limit=1');
    expect((await lastLogged(t)).keyPrefix).toMatch(/^tcs_live_aurora_/);
    const org = await issueKey(t, await orgOf(t, t.liveWorkspaceId), { scopes: ['products:read'] });
    await t.request('GET', '/v1/products?limit=1', { key: org.key });
    expect((await lastLogged(t)).keyPrefix).toBe(`org_${org.keyPrefix}`);
    await t.request('GET', '/v1/products?limit=1', { key: INTERNAL, headers: { 'x-workspace-id': t.liveWorkspaceId } });
    expect((await lastLogged(t)).keyPrefix).toBe('internal');
  });

  it('a record created with the internal key says it was created by internal', async () => {
    const res = await t.request('POST', '/v1/forms', {
      key: INTERNAL,
      headers: { 'x-workspace-id': t.liveWorkspaceId },
      body: { name: 'by service', fields: [] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().created_by).toBe('internal');
  });
});

describe('keys whose workspace is gone', () => {
  it('deleting a workspace makes its keys, and its organization keys, unknown: 401 UNKNOWN_KEY, and nothing on stderr', async () => {
    const ws = await createdWorkspace(t, 'doomed');
    const org = await issueKey(t, await orgOf(t, ws.id), { scopes: ['products:read'] }, ws.keys[0]!.key);
    expect((await t.request('GET', '/v1/products?limit=1', { key: ws.keys[0]!.key })).statusCode).toBe(200);
    expect((await t.request('GET', '/v1/products?limit=1', { key: org.key })).statusCode).toBe(200);
    const errors = vi.spyOn(console, 'error');
    try {
      expect((await t.request('DELETE', `/__sandbox/workspaces/${ws.id}`, { key: null })).statusCode).toBe(200);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
    for (const key of [ws.keys[0]!.key, org.key]) {
      const res = await t.request('GET', '/v1/products?limit=1', { key });
      expect(res.statusCode).toBe(401);
      expect(reasonOf(res)).toMatch(/^UNKNOWN_KEY no key matches /);
    }
  });

  it('a key that outlived its workspace (as a hand edit of the database can leave it) is a 401 KEY_WORKSPACE_DELETED', async () => {
    const s = await testSandbox({ enforceRateLimits: false });
    try {
      const ws = await createdWorkspace(s, 'edited away');
      const key = ws.keys[0]!;
      const org = await issueKey(s, await orgOf(s, ws.id), { scopes: ['products:read'] }, key.key);
      await s.sandbox.store.commit([WORKSPACES.deleteOp(GLOBAL_PARTITION, ws.id)]);
      const own = await s.request('GET', '/v1/products?limit=1', { key: key.key });
      expect(own.statusCode).toBe(401);
      expect(reasonOf(own)).toBe(`KEY_WORKSPACE_DELETED key ${key.keyPrefix}... belongs to workspace ${ws.id}, which was deleted`);
      const partner = await s.request('GET', '/v1/products?limit=1', { key: org.key });
      expect(partner.statusCode).toBe(401);
      expect(reasonOf(partner)).toBe(`KEY_WORKSPACE_DELETED key org_${org.keyPrefix}... belongs to workspace ${ws.id}, which was deleted`);
    } finally {
      await s.sandbox.stop();
    }
  });
});

describe('the edge-cache lag (revocationLagMs)', () => {
  const LAG = 60_000;
  let s: TestSandbox;
  beforeAll(async () => {
    s = await testSandbox({ enforceRateLimits: false, revocationLagMs: LAG });
  });
  afterAll(() => s.sandbox.stop());
  const advance = (ms: number) => s.request('POST', `/__sandbox/workspaces/${s.liveWorkspaceId}/clock/advance`, { key: null, body: { ms } });
  const status = async (key: string) => (await s.request('GET', '/v1/products?limit=1', { key })).statusCode;

  it('a revoked workspace key keeps working for the lag, then gets 401 KEY_REVOKED', async () => {
    const created = await s.request('POST', `/__sandbox/workspaces/${s.liveWorkspaceId}/keys`, { key: null, body: { name: 'lagging', scopes: null } });
    const { id, key, keyPrefix } = created.json().data as { id: string; key: string; keyPrefix: string };
    expect((await s.request('DELETE', `/__sandbox/keys/${id}`, { key: null })).statusCode).toBe(200);
    expect(await status(key)).toBe(200);
    expect((await advance(LAG - 1)).statusCode).toBe(200);
    expect(await status(key)).toBe(200);
    await advance(1);
    const res = await s.request('GET', '/v1/products?limit=1', { key });
    expect(res.statusCode).toBe(401);
    const { revokedAt } = s.sandbox.store.list<{ id: string; revokedAt: string }>('apiKeys', '_global').find((k) => k.id === id)!;
    expect(reasonOf(res)).toBe(`KEY_REVOKED key ${keyPrefix}... was revoked at ${revokedAt} by the control plane`);
  });

  it('a revoked organization key names what revoked it, once the lag has passed', async () => {
    const org = await issueKey(s, await orgOf(s, s.liveWorkspaceId), { scopes: ['products:read'] });
    const revoked = await s.request('DELETE', `/v1/organizations/${await orgOf(s, s.liveWorkspaceId)}/api-keys/${org.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const { revokedAt, revokedBy } = revoked.json().data as { revokedAt: string; revokedBy: string };
    expect(await status(org.key)).toBe(200);
    await advance(LAG);
    const res = await s.request('GET', '/v1/products?limit=1', { key: org.key });
    expect(res.statusCode).toBe(401);
    expect(reasonOf(res)).toBe(`KEY_REVOKED key org_${org.keyPrefix}... was revoked at ${revokedAt} by ${revokedBy}`);
    expect(revokedBy).toMatch(/^wkey_/);
  });

  it('an expired organization key keeps working for the lag past its expiry, then gets 401 KEY_EXPIRED', async () => {
    const now = Date.parse((await s.request('GET', `/__sandbox/workspaces/${s.liveWorkspaceId}/clock`, { key: null })).json().data.now);
    const org = await issueKey(s, await orgOf(s, s.liveWorkspaceId), { scopes: ['products:read'], expiresAt: new Date(now + 1_000).toISOString() });
    await advance(1_000 + LAG - 1);
    expect(await status(org.key)).toBe(200);
    await advance(1);
    const res = await s.request('GET', '/v1/products?limit=1', { key: org.key });
    expect(res.statusCode).toBe(401);
    expect(reasonOf(res)).toMatch(new RegExp(`^KEY_EXPIRED key org_${org.keyPrefix}\\.\\.\\. expired at `));
  });
});

describe("an organization key's own rate policy", () => {
  it('is enforced on top of the workspace limit', async () => {
    // a live workspace of its own that enforces its limits, in this sandbox that does not
    const w = await t.sandbox.createWorkspace({ template: t.liveWorkspaceId, rateLimits: 'enforce' });
    const own = w.keys[0]!.key;
    const org = await issueKey(t, await orgOf(t, w.id), { scopes: ['products:read'], rateLimitPolicy: { rps: 100, rpm: 600, burst: 1 } }, own);
    expect((await t.request('GET', '/v1/products?limit=1', { key: org.key })).statusCode).toBe(200);
    const limited = await t.request('GET', '/v1/products?limit=1', { key: org.key });
    expect(limited.statusCode).toBe(429);
    expect(reasonOf(limited)).toMatch(new RegExp(`^RATE_LIMIT_BURST organization key org_${org.keyPrefix}\\.\\.\\. \\(rpm 600, burst 1, rps 100\\)`));
    // the workspace's own key is not held back by the organization key's bucket
    expect((await t.request('GET', '/v1/products?limit=1', { key: own })).statusCode).toBe(200);
  });
});

describe('the key index across writes', () => {
  it("an organization key's last use survives unrelated writes until it is saved", async () => {
    const org = await issueKey(t, await orgOf(t, t.liveWorkspaceId), { scopes: ['products:read'] });
    // used a second after its creation, so its last use is not its createdAt (what a key never used reads)
    await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/clock/advance`, { key: null, body: { ms: 1_000 } });
    const usedAt = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/clock`, { key: null })).json().data.now as string;
    expect((await t.request('GET', '/v1/products?limit=1', { key: org.key })).statusCode).toBe(200);
    expect((await t.request('POST', '/v1/forms', { body: { name: 'unrelated write', fields: [] } })).statusCode).toBe(201);
    const listed = (await t.request('GET', `/v1/organizations/${await orgOf(t, t.liveWorkspaceId)}/api-keys`)).json().data as {
      id: string;
      createdAt: string;
      lastUsedAt: string;
    }[];
    const shown = listed.find((k) => k.id === org.id)!;
    expect(shown.lastUsedAt).toBe(usedAt);
    expect(shown.lastUsedAt).not.toBe(shown.createdAt);
  });
});

// last: it replaces this file's sandbox's state with another's
describe('keys after the state is replaced', () => {
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
