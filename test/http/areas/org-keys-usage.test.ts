import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { issueKey, orgOf } from './helpers.ts';

/** Using an organization key (API description, "Authentication" 8-9, "Limits"). */
let t: TestSandbox | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup(options: Parameters<typeof testSandbox>[0] = {}) {
  t = await testSandbox({ enforceRateLimits: false, ...options });
  return { t, org: await orgOf(t, t.liveWorkspaceId) };
}

describe('an organization key acts in the issuing workspace, limited to its scopes and products', () => {
  it('sees only its productIds: others are absent from lists and a 404 when asked for directly', async () => {
    const { t, org } = await setup();
    const all = (await t.request('GET', '/v1/products?limit=100')).json().data as { id: string }[];
    const [a, b, other] = all;
    // one id given bare (the description types productIds as uuid), one prefixed
    const partner = await issueKey(t, org, { scopes: ['products:read'], productIds: [a!.id.replace(/^prod_/, ''), b!.id] });
    expect(partner.productIds).toEqual([a!.id.replace(/^prod_/, ''), b!.id.replace(/^prod_/, '')]); // answered bare, as typed (uuid)
    const list = await t.request('GET', '/v1/products?limit=100', { key: partner.key });
    expect(list.statusCode).toBe(200);
    expect(
      list
        .json()
        .data.map((p: { id: string }) => p.id)
        .sort(),
    ).toEqual([a!.id, b!.id].sort());
    expect(list.json().pagination.total).toBe(2);
    expect((await t.request('GET', `/v1/products/${a!.id}`, { key: partner.key })).statusCode).toBe(200);
    expect((await t.request('GET', `/v1/products/${other!.id}`, { key: partner.key })).statusCode).toBe(404);
  });

  it('empty productIds means every product', async () => {
    const { t, org } = await setup();
    const partner = await issueKey(t, org, { scopes: ['products:read'] });
    const own = (await t.request('GET', '/v1/products?limit=1')).json().pagination.total;
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).json().pagination.total).toBe(own);
  });

  it('is limited to its scopes: [] grants nothing, products:read does not allow writes', async () => {
    const { t, org } = await setup();
    const none = await issueKey(t, org);
    expect((await t.request('GET', '/v1/products', { key: none.key })).json()).toEqual({ error: 'Forbidden' });
    const reader = await issueKey(t, org, { scopes: ['products:read'] });
    expect((await t.request('GET', '/v1/products', { key: reader.key })).statusCode).toBe(200);
    const write = await t.request('POST', '/v1/forms', { key: reader.key, body: { name: 'x', fields: [] } });
    expect(write.statusCode).toBe(403);
  });

  it('never reaches another workspace', async () => {
    const { t, org } = await setup();
    const partner = await issueKey(t, org, { scopes: ['*'] });
    const foreign = (await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).json().data[0].id;
    expect((await t.request('GET', `/v1/products/${foreign}`, { key: partner.key })).statusCode).toBe(404);
  });
});

describe('expiry and revocation on the manual clock', () => {
  it('works until expiresAt, then 401', async () => {
    const { t, org } = await setup();
    const expiresAt = new Date(t.sandbox.clock.now() + 60_000).toISOString();
    const partner = await issueKey(t, org, { scopes: ['products:read'], expiresAt });
    expect(partner.expiresAt).toBe(expiresAt);
    await t.sandbox.clock.advance(59_999);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(200);
    await t.sandbox.clock.advance(1);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).json()).toEqual({ error: 'Unauthorized' });
  });

  it('revocationLagMs emulates the edge cache: the key keeps working for the lag, then 401', async () => {
    const { t, org } = await setup({ revocationLagMs: 60_000 });
    const partner = await issueKey(t, org, { scopes: ['products:read'] });
    expect((await t.request('DELETE', `/v1/organizations/${org}/api-keys/${partner.id}`)).statusCode).toBe(200);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(200);
    await t.sandbox.clock.advance(59_999);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(200);
    await t.sandbox.clock.advance(1);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(401);
  });

  it('the default lag is 0: revocation applies to the very next request', async () => {
    const { t, org } = await setup();
    const partner = await issueKey(t, org, { scopes: ['products:read'] });
    await t.request('DELETE', `/v1/organizations/${org}/api-keys/${partner.id}`);
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(401);
  });
});

describe('per-key rate policy on top of the workspace limit, whichever is tighter', () => {
  it('rps caps each second; burst and rpm apply too; the workspace key is unaffected', async () => {
    t = await testSandbox();
    const org = await orgOf(t, t.liveWorkspaceId);
    const partner = await issueKey(t, org, { scopes: ['products:read'], rateLimitPolicy: { rps: 2, rpm: 4, burst: 10 } });
    const hit = async () => (await t!.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode;
    expect([await hit(), await hit(), await hit()]).toEqual([200, 200, 429]);
    const refused = await t.request('GET', '/v1/products?limit=1', { key: partner.key });
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode).toBe(200);
    await t.sandbox.clock.advance(1_000);
    expect([await hit(), await hit()]).toEqual([200, 200]);
    await t.sandbox.clock.advance(1_000);
    expect(await hit()).toBe(429); // rpm 4 used up within the minute
    expect(refused.headers['x-ratelimit-limit']).toBeDefined();
  });

  it('the workspace limit still binds when the key policy is looser', async () => {
    t = await testSandbox();
    const org = await orgOf(t, t.sandboxWorkspaceId);
    const partner = await issueKey(t, org, { scopes: ['products:read'], rateLimitPolicy: { rps: 100, rpm: 1000, burst: 100 } }, KEYS.sandboxFull);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode);
    // one request (the issuing POST) already took a token of the sandbox workspace's burst of 5
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('a burst smaller than rps binds', async () => {
    t = await testSandbox();
    const org = await orgOf(t, t.liveWorkspaceId);
    const partner = await issueKey(t, org, { scopes: ['products:read'], rateLimitPolicy: { rps: 10, rpm: 60, burst: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode);
    expect(statuses).toEqual([200, 200, 429]);
    await t.sandbox.clock.advance(1_000); // one token per second at 60 rpm
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(200);
  });
});

describe('hashing at rest', () => {
  it('the database files of a file-backed sandbox never contain a full key or its secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcs-orgkeys-'));
    dirs.push(dir);
    t = await testSandbox({ storage: join(dir, 'db.json'), enforceRateLimits: false });
    const org = await orgOf(t, t.liveWorkspaceId);
    const partner = await issueKey(t, org, { scopes: ['products:read'] });
    expect((await t.request('GET', '/v1/products?limit=1', { key: partner.key })).statusCode).toBe(200);
    await t.request('DELETE', `/v1/organizations/${org}/api-keys/${partner.id}`);
    const secret = partner.key.split('_')[2]!;
    const check = () => {
      const files = readdirSync(dir);
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) {
        const text = readFileSync(join(dir, file), 'utf8');
        expect(text).not.toContain(partner.key);
        expect(text).not.toContain(secret);
      }
      return files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
    };
    await t.sandbox.store.flush();
    expect(check()).toContain(partner.keyPrefix); // the key itself is on disk, as prefix and hash
    await t.sandbox.stop();
    t = undefined;
    check();
  });
});
