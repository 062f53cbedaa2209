import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { exported, issueKey, orgOf } from './helpers.ts';

let t: TestSandbox;
let org: string;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  org = await orgOf(t, t.liveWorkspaceId);
});
afterAll(() => t.sandbox.stop());

const path = (id = org) => `/v1/organizations/${id}/api-keys`;

describe('POST /v1/organizations/:id/api-keys (Organization API keys)', () => {
  it('answers 201 {data} with exactly the documented fields and an org_<8>_<32> key', async () => {
    const res = await t.request('POST', path(), { body: { scopes: ['products:read'], rateLimitPolicy: { rps: 2, rpm: 50, burst: 3 } } });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'issuedByWorkspaceId', 'key', 'keyPrefix', 'organizationId', 'productIds', 'rateLimitPolicy', 'scopes', 'status'].sort(),
    );
    expect(data.key).toMatch(/^org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/);
    expect(data.key.slice(4, 12)).toBe(data.keyPrefix);
    expect(data).toMatchObject({
      id: expect.stringMatching(/^orgkey_/),
      organizationId: org,
      issuedByWorkspaceId: t.liveWorkspaceId,
      scopes: ['products:read'],
      productIds: [],
      status: 'active',
      expiresAt: null,
      rateLimitPolicy: { rps: 2, rpm: 50, burst: 3 },
    });
  });

  it('defaults: scopes [], productIds [], expiresAt null, the workspace tier as policy', async () => {
    const data = await issueKey(t, org);
    expect(data).toMatchObject({ scopes: [], productIds: [], expiresAt: null, rateLimitPolicy: { rps: 30, rpm: 3000, burst: 30 } });
  });

  it('two keys never share a value or a prefix', async () => {
    const a = await issueKey(t, org);
    const b = await issueKey(t, org);
    expect(a.key).not.toBe(b.key);
    expect(a.keyPrefix).not.toBe(b.keyPrefix);
  });

  it('stores only the SHA-256 hash', async () => {
    const { id, key } = await issueKey(t, org);
    const row = t.sandbox.store.get<{ id: string; keyHash: string }>('orgApiKeys', t.liveWorkspaceId, id)!;
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("unknown organization -> 404; another workspace's organization -> 404; malformed id -> 400", async () => {
    expect((await t.request('POST', path('org_00000000-0000-4000-8000-000000000000'), { body: {} })).statusCode).toBe(404);
    const foreign = await orgOf(t, t.sandboxWorkspaceId);
    const res = await t.request('POST', path(foreign), { body: {} });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Organization not found' });
    expect((await t.request('POST', path('prod_00000000-0000-4000-8000-000000000000'), { body: {} })).statusCode).toBe(400);
  });

  it.each([
    ['a bad scope', { scopes: ['not a scope'] }],
    ['a product id that is not a UUID', { productIds: ['abc'] }],
    ['an unknown product', { productIds: ['00000000-0000-4000-8000-000000000000'] }],
    ['an expiry that is not ISO 8601', { expiresAt: 'tomorrow' }],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }],
    ['a policy with a zero rps', { rateLimitPolicy: { rps: 0, rpm: 10, burst: 1 } }],
    ['a policy missing burst', { rateLimitPolicy: { rps: 1, rpm: 10 } }],
    ['a fractional rpm', { rateLimitPolicy: { rps: 1, rpm: 1.5, burst: 1 } }],
  ])('%s -> 400 VALIDATION_400', async (_name, body) => {
    const res = await t.request('POST', path(), { body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_400' });
  });

  it('a scoped issuer cannot grant scopes it lacks (400), and a partner key cannot manage keys (403)', async () => {
    const scoped = await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/keys`, { key: null, body: { scopes: ['organizations:write'] } });
    const issuer = scoped.json().data.key;
    const res = await t.request('POST', path(), { key: issuer, body: { scopes: ['products:read'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toMatch(/products:read/);
    const partner = await issueKey(t, org, { scopes: ['*'] });
    expect((await t.request('GET', path(), { key: partner.key })).json()).toEqual({ error: 'Forbidden' });
    expect((await t.request('POST', path(), { key: partner.key, body: {} })).statusCode).toBe(403);
  });

  it('needs organizations:write (403 for a products:read key)', async () => {
    expect((await t.request('POST', path(), { key: KEYS.liveRead, body: {} })).statusCode).toBe(403);
    expect((await t.request('GET', path(), { key: KEYS.liveRead })).statusCode).toBe(403);
  });

  it('401 without a key', async () => {
    expect((await t.request('POST', path(), { key: null, body: {} })).json()).toEqual({ error: 'Unauthorized' });
  });
});

describe('GET /v1/organizations/:id/api-keys', () => {
  it('lists keyPrefix and lastUsedAt, never key or keyHash', async () => {
    const created = await issueKey(t, org, { scopes: ['products:read'] });
    const before = (await t.request('GET', path())).json().data.find((k: { id: string }) => k.id === created.id);
    // lastUsedAt is "string, present in listings": a key never used reads its createdAt, never null
    expect(before).toMatchObject({ keyPrefix: created.keyPrefix, lastUsedAt: created.createdAt, status: 'active' });
    expect(before).not.toHaveProperty('revokedAt');
    expect(before).not.toHaveProperty('revokedBy');
    expect(before).not.toHaveProperty('key');
    expect(before).not.toHaveProperty('keyHash');
    await t.sandbox.clock.advance(5_000);
    expect((await t.request('GET', '/v1/products?limit=1', { key: created.key })).statusCode).toBe(200);
    const after = (await t.request('GET', path())).json().data.find((k: { id: string }) => k.id === created.id);
    expect(after.lastUsedAt).toBe(t.sandbox.clock.iso());
  });

  it('lastUsedAt is persisted lazily, within a minute of sandbox time, not on every request', async () => {
    const created = await issueKey(t, org, { scopes: ['products:read'] });
    await t.request('GET', '/v1/products?limit=1', { key: created.key });
    const usedAt = t.sandbox.clock.iso();
    const stored = () => t.sandbox.store.get<{ id: string; lastUsedAt: string | null }>('orgApiKeys', t.liveWorkspaceId, created.id)!.lastUsedAt;
    expect(stored()).toBeNull();
    await t.sandbox.clock.advance(60_000);
    expect(stored()).toBe(usedAt);
  });

  it('schedules the flush only while a use waits: a long clock jump fires no flush per minute, and a use after it is still written within a minute', async () => {
    const created = await issueKey(t, org, { scopes: ['products:read'] });
    await t.sandbox.clock.advance(60_000); // whatever earlier tests left unwritten is written now
    const flushes = async (ms: number) => {
      const { ran } = await t.sandbox.clock.recordRuns(() => t.sandbox.clock.advance(ms));
      return ran.filter((run) => run.label === 'organization key usage flush').length;
    };
    expect(await flushes(30 * 86_400_000)).toBe(0); // was 43,200: one a minute whatever happened
    await t.request('GET', '/v1/products?limit=1', { key: created.key });
    const usedAt = t.sandbox.clock.iso();
    expect(await flushes(60_000)).toBe(1);
    expect(t.sandbox.store.get<{ id: string; lastUsedAt: string | null }>('orgApiKeys', t.liveWorkspaceId, created.id)!.lastUsedAt).toBe(usedAt);
    expect(await flushes(86_400_000)).toBe(0);
  });

  it("lists only this organization's keys; unknown org -> 404", async () => {
    const keys = (await t.request('GET', path())).json().data;
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k.organizationId).toBe(org);
    expect((await t.request('GET', path('org_00000000-0000-4000-8000-000000000000'))).statusCode).toBe(404);
  });
});

describe('DELETE /v1/organizations/:id/api-keys/:keyId', () => {
  it('answers {data: {id, organizationId, status, revokedAt, revokedBy}}; the very next request gets 401', async () => {
    const { id, key } = await issueKey(t, org, { scopes: ['products:read'] });
    expect((await t.request('GET', '/v1/products?limit=1', { key })).statusCode).toBe(200);
    const res = await t.request('DELETE', `${path()}/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: { id, organizationId: org, status: 'revoked', revokedAt: t.sandbox.clock.iso(), revokedBy: 'wkey_8270fdd7-398e-4caf-8604-bff1bad5ca14' },
    });
    expect((await t.request('GET', '/v1/products?limit=1', { key })).json()).toEqual({ error: 'Unauthorized' });
    const listed = (await t.request('GET', path())).json().data.find((k: { id: string }) => k.id === id);
    expect(listed).toMatchObject({ status: 'revoked', revokedAt: expect.any(String), revokedBy: expect.stringMatching(/^wkey_/) });
  });

  it("twice -> 409; unknown key -> 404; another organization's key -> 404; malformed keyId -> 400", async () => {
    const { id } = await issueKey(t, org);
    await t.request('DELETE', `${path()}/${id}`);
    const again = await t.request('DELETE', `${path()}/${id}`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatch(/already revoked/);
    const unknown = await t.request('DELETE', `${path()}/orgkey_00000000-0000-4000-8000-000000000000`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Organization API key not found' });
    expect((await t.request('DELETE', `${path()}/wkey_00000000-0000-4000-8000-000000000000`)).statusCode).toBe(400);
    const foreignOrg = await orgOf(t, t.sandboxWorkspaceId);
    const foreign = await issueKey(t, foreignOrg, {}, KEYS.sandboxFull);
    expect((await t.request('DELETE', `${path()}/${foreign.id}`)).statusCode).toBe(404);
    expect((await t.request('DELETE', `${path(foreignOrg)}/${foreign.id}`)).statusCode).toBe(404);
  });

  it('export strips key hashes', async () => {
    const keys = await exported(t, t.liveWorkspaceId, 'orgApiKeys');
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(k).not.toHaveProperty('keyHash');
  });
});

describe('Idempotency-Key on key creation', () => {
  it('a retry gets the first answer again, key included, never a second key; the key is never written to the store', async () => {
    const headers = { 'idempotency-key': 'create-partner-key-1' };
    const count = async () => (await t.request('GET', path())).json().data.length;
    const before = await count();
    const first = await t.request('POST', path(), { body: { scopes: [] }, headers });
    expect(first.statusCode).toBe(201);
    const { key } = first.json().data;
    // a client whose first answer was lost retries with the same key and gets the key it created, not a 409
    const retry = await t.request('POST', path(), { body: { scopes: [] }, headers });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(JSON.stringify(t.sandbox.store.exportCollections())).not.toContain(key);
    expect(await count()).toBe(before + 1);
  });

  it('after a restart, a retry gets a 409 KEY_NOT_REPLAYABLE that says why, and still no second key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-orgkeys-'));
    try {
      const storage = join(dir, 'db.json');
      const headers = { 'idempotency-key': 'create-before-restart' };
      const first = await testSandbox({ storage, fsync: false, enforceRateLimits: false });
      const orgId = await orgOf(first, first.liveWorkspaceId);
      const created = await first.request('POST', path(orgId), { body: { scopes: [] }, headers });
      expect(created.statusCode).toBe(201);
      const { id, key } = created.json().data;
      await first.sandbox.stop();
      expect(await readFile(storage, 'utf8')).not.toContain(key);
      expect(await readFile(`${storage}.journal`, 'utf8').catch(() => '')).not.toContain(key);

      const second = await testSandbox({ storage, fsync: false, enforceRateLimits: false });
      try {
        const retry = await second.request('POST', path(orgId), { body: { scopes: [] }, headers });
        expect(retry.statusCode).toBe(409);
        expect(retry.headers['idempotent-replayed']).toBe('true');
        expect(retry.json()).toEqual({
          code: 'KEY_NOT_REPLAYABLE',
          error: expect.stringContaining(`Organization API key ${id} was already created with this Idempotency-Key`),
        });
        expect(retry.json().error).toContain('restarted');
        expect(retry.body).not.toContain(key);
        expect((await second.request('GET', path(orgId))).json().data.filter((k: { id: string }) => k.id === id)).toHaveLength(1);
      } finally {
        await second.sandbox.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
