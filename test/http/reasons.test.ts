import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { ALL_REASON_CODES } from '../../src/core/reasons.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { KEYS } from '../helpers/sandbox.ts';

/** A response's JSON, untyped: these tests read a few fields of it. */
const j = async (response: Promise<Response>): Promise<any> => (await response).json();

/**
 * Every refusal the sandbox decides says why in X-Sandbox-Reason
 * (`CODE sentence`), over a real socket, and the request log (GET
 * /__sandbox/requests) carries the same text; the documented body is
 * byte-for-byte what it was. The 429's reasons: rate-limit.test.ts.
 */
const INTERNAL = 'internal-service-key-0123456789abcdef';
let s: Sandbox;
let liveOrg: string;
let liveProducts: string[];
let sandboxProduct: string;

beforeAll(async () => {
  s = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', enforceRateLimits: false, bodyLimit: 1024, internalApiKey: INTERNAL });
  liveProducts = (await json('GET', '/v1/products?limit=3', KEYS.liveFull)).data.map((p: { id: string }) => p.id);
  sandboxProduct = (await json('GET', '/v1/products?limit=1', KEYS.sandboxFull)).data[0].id;
  const live = s.workspaces.find((w) => w.mode === 'live')!.id;
  liveOrg = (await j(fetch(`${s.controlUrl}/workspaces/${live}/export`))).data.organizations[0].id;
});
afterAll(() => s?.stop());

async function json(method: string, path: string, key: string, body?: unknown): Promise<any> {
  return j(call(method, path, { key, body }));
}

function call(method: string, path: string, opts: { key?: string | null; authorization?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? KEYS.liveFull}`;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  return fetch(`${s.url}${path}`, {
    method,
    headers,
    ...(opts.body !== undefined ? { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) } : {}),
  });
}

/** The refusal: status, exact body text, the header, and the request log's entry of that request. */
async function refusal(method: string, path: string, opts: Parameters<typeof call>[2] = {}) {
  const res = await call(method, path, opts);
  const body = await res.text();
  const reason = res.headers.get('x-sandbox-reason');
  const requestId = res.headers.get('x-request-id');
  const log = (await j(fetch(`${s.controlUrl}/requests?limit=1000`))).data as { requestId: string; reason?: string; status: number }[];
  const entry = log.find((e) => e.requestId === requestId);
  expect(entry, `${method} ${path} is in the request log`).toBeDefined();
  expect(entry!.reason, 'the log carries the header').toBe(reason ?? undefined);
  return { status: res.status, body, reason: reason ?? '', entry: entry! };
}

async function orgKey(body: Record<string, unknown>) {
  const data = await json('POST', `/v1/organizations/${liveOrg}/api-keys`, KEYS.liveFull, body);
  expect(data.data?.key, JSON.stringify(data)).toBeDefined();
  return data.data as { id: string; key: string; keyPrefix: string };
}

describe('401: why the key was refused', () => {
  it('no Authorization header', async () => {
    const r = await refusal('GET', '/v1/products', { key: null });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toBe('MISSING_AUTHORIZATION no Authorization header; send Authorization: Bearer <key>');
  });

  it('a scheme that is not Bearer; bearer in any case still works', async () => {
    const r = await refusal('GET', '/v1/products', { authorization: `Token ${KEYS.liveFull}` });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toMatch(/^NOT_BEARER the Authorization scheme is "Token", not Bearer/);
    expect(r.reason).not.toContain(KEYS.liveFull.slice(10));
    expect((await call('GET', '/v1/products?limit=1', { authorization: `bEaReR ${KEYS.liveFull}` })).status).toBe(200);
    // a key with no scheme is named as a key, with the header to send, and never whole
    const bare = await refusal('GET', '/v1/products', { authorization: KEYS.sandboxFull });
    expect(bare).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(bare.reason).toBe('NOT_BEARER the Authorization header has a key with no scheme (tcs_test_boreali...); send it as Authorization: Bearer <key>');
    const malformed = await refusal('GET', '/v1/products', { authorization: 'Bearer two words' });
    expect(malformed.reason).toMatch(/^MALFORMED_BEARER /);
  });

  it('no key matches: the prefix sent, never the whole key', async () => {
    const sent = 'tcs_live_aurora_full_9999999999999999999999';
    const r = await refusal('GET', '/v1/products', { key: sent });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toBe("UNKNOWN_KEY no key matches tcs_live_aurora_...; the keys are in `sandbox keys list` and the inspector's Keys view");
    expect(r.reason).not.toContain(sent);
    const junk = await refusal('GET', '/v1/products', { key: 'abcdefghijkl' });
    expect(junk.reason).toBe(
      "UNKNOWN_KEY no key matches abcdef... (12 characters); it does not look like a key the sandbox issues (tcs_live_..., tcs_test_..., org_...); the keys are in `sandbox keys list` and the inspector's Keys view",
    );
    expect((await refusal('GET', '/v1/products', { key: 'undefined' })).reason).toMatch(/^UNKNOWN_KEY the key sent is the text "undefined"/);
  });

  it('a revoked workspace key: when, and by what', async () => {
    const live = s.workspaces.find((w) => w.mode === 'live')!.id;
    const created = (
      await j(fetch(`${s.controlUrl}/workspaces/${live}/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"gone"}' }))
    ).data;
    const revoked = (await j(fetch(`${s.controlUrl}/keys/${created.id}`, { method: 'DELETE' }))).data;
    const r = await refusal('GET', '/v1/products', { key: created.key });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toBe(`KEY_REVOKED key ${created.keyPrefix}... was revoked at ${revoked.revokedAt} by the control plane`);
  });

  it('a revoked organization key names the key that revoked it', async () => {
    const key = await orgKey({ scopes: ['products:read'] });
    const revoked = (await json('DELETE', `/v1/organizations/${liveOrg}/api-keys/${key.id}`, KEYS.liveFull)).data;
    const r = await refusal('GET', '/v1/products', { key: key.key });
    expect(r.reason).toBe(`KEY_REVOKED key org_${key.keyPrefix}... was revoked at ${revoked.revokedAt} by ${revoked.revokedBy}`);
    expect(revoked.revokedBy).toMatch(/^wkey_/);
  });

  it("an expired organization key: when, on which workspace's clock", async () => {
    const live = s.workspaces.find((w) => w.mode === 'live')!.id;
    const now = Date.parse((await j(fetch(`${s.controlUrl}/workspaces/${live}/clock`))).data.now);
    const expiresAt = new Date(now + 60_000).toISOString();
    const key = await orgKey({ scopes: ['products:read'], expiresAt });
    expect((await call('GET', '/v1/products?limit=1', { key: key.key })).status).toBe(200);
    await fetch(`${s.controlUrl}/workspaces/${live}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ms":120000}' });
    const r = await refusal('GET', '/v1/products', { key: key.key });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toBe(
      `KEY_EXPIRED key org_${key.keyPrefix}... expired at ${expiresAt} by the clock of workspace ${live} (manual), which reads ${new Date(now + 120_000).toISOString()}`,
    );
  });
});

describe("403 and an organization key's product list", () => {
  it('the scope the route needs and the scopes the key has', async () => {
    const r = await refusal('POST', '/v1/forms', { key: KEYS.liveRead, body: { name: 'x', fields: [] } });
    expect(r).toMatchObject({ status: 403, body: '{"error":"Forbidden"}' });
    expect(r.reason).toMatch(/^MISSING_SCOPE POST \/v1\/forms needs scope forms:write; key tcs_live_aurora_\S*\.\.\. has products:read$/);
  });

  it('an organization key on the organization-key endpoints', async () => {
    const key = await orgKey({ scopes: ['*'] });
    const r = await refusal('GET', `/v1/organizations/${liveOrg}/api-keys`, { key: key.key });
    expect(r).toMatchObject({ status: 403, body: '{"error":"Forbidden"}' });
    expect(r.reason).toMatch(/^ORGANIZATION_KEY_NOT_ALLOWED key org_\w+\.\.\. is an organization key/);
  });

  it("products outside the key's productIds: the same reason whether or not the product exists", async () => {
    const key = await orgKey({ scopes: ['products:read'], productIds: [liveProducts[0]] });
    expect((await call('GET', `/v1/products/${liveProducts[0]}`, { key: key.key })).status).toBe(200);
    const other = await refusal('GET', `/v1/products/${liveProducts[1]}`, { key: key.key });
    expect(other).toMatchObject({ status: 404, body: '{"error":"Product not found"}' });
    expect(other.reason).toBe(
      `OUTSIDE_KEY_PRODUCTS product ${liveProducts[1]} is not among the 1 product organization key org_${key.keyPrefix}... may use (its productIds)`,
    );
    const ghost = `prod_${randomUUID()}`;
    const none = await refusal('GET', `/v1/products/${ghost}`, { key: key.key });
    expect(none.reason).toBe(other.reason.replace(liveProducts[1]!, ghost));
  });
});

describe('404: the id, its form, and nothing about other workspaces', () => {
  it('an unknown id and another workspace’s id read alike', async () => {
    const live = s.workspaces.find((w) => w.mode === 'live')!.id;
    const ghost = `prod_${randomUUID()}`;
    const unknown = await refusal('GET', `/v1/products/${ghost}`);
    expect(unknown).toMatchObject({ status: 404, body: '{"error":"Product not found"}' });
    expect(unknown.reason).toBe(`NOT_FOUND product ${ghost} is not in workspace ${live}, the key's workspace (the prefix prod_ is right for id)`);
    const foreign = await refusal('GET', `/v1/products/${sandboxProduct}`);
    expect(foreign.body).toBe(unknown.body);
    expect(foreign.reason).toBe(unknown.reason.replace(ghost, sandboxProduct));
  });

  it('an id with the prefix of another field is a 400 that names both prefixes', async () => {
    const r = await refusal('GET', `/v1/products/dept_${randomUUID()}`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ error: 'Invalid id: expected an id of the form prod_<uuid>', code: 'INVALID_ID' });
    expect(r.reason).toMatch(/^INVALID_ID id "dept_[0-9a-f-]+" has the prefix dept_ \(and a UUID after it\); id takes prod_<uuid> or a bare UUID$/);
  });

  it('an unknown route names the closest one', async () => {
    const r = await refusal('GET', '/v1/product/abc');
    expect(r).toMatchObject({ status: 404, body: '{"error":"Route GET /v1/product/abc not found"}' });
    expect(r.reason).toBe('ROUTE_NOT_FOUND no route GET /v1/product/abc; the closest is GET /v1/products/:id');
  });
});

describe('409, 422, 400, 413, 415', () => {
  it('422: the idempotency record the request conflicts with', async () => {
    const key = `reuse-${randomUUID()}`;
    const first = await call('POST', '/v1/forms', { body: { name: 'A', fields: [] }, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(201);
    const r = await refusal('POST', '/v1/forms', { body: { name: 'B', fields: [] }, headers: { 'idempotency-key': key } });
    expect(r.status).toBe(422);
    expect(JSON.parse(r.body)).toEqual({ error: 'Idempotency-Key was already used with a different request; use a new key', code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(r.reason).toMatch(
      new RegExp(
        `^IDEMPOTENCY_KEY_REUSED Idempotency-Key "${key}" was first used at \\S+Z \\(answered 201; kept until \\S+Z\\): same method and path, another body$`,
      ),
    );
  });

  it('409: the state that conflicts', async () => {
    await call('POST', '/v1/forms', { body: { name: 'Slugged', slug: 'taken-slug', fields: [] } });
    const r = await refusal('POST', '/v1/forms', { body: { name: 'Again', slug: 'taken-slug', fields: [] } });
    expect(r.status).toBe(409);
    expect(r.reason).toBe('DUPLICATE_FORM_SLUG A form with slug "taken-slug" already exists');
  });

  it('400 validation: the first detail; 413: the size and the limit; 415: the type', async () => {
    const invalid = await refusal('POST', '/v1/forms', { body: { name: 7 } });
    expect(invalid.status).toBe(400);
    expect(invalid.reason).toMatch(/^VALIDATION_400 body\.name: .+ \(and 1 more\)$/);
    const big = await refusal('POST', '/v1/forms', { body: { name: 'x'.repeat(2000), fields: [] } });
    expect(big.status).toBe(413);
    expect(big.reason).toMatch(/^PAYLOAD_TOO_LARGE the body has 20\d\d bytes; the limit is 1024 bytes/);
    const text = await refusal('POST', '/v1/forms', { body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.reason).toBe('UNSUPPORTED_MEDIA_TYPE Unsupported Content-Type "text/plain"; send application/json');
  });
});

describe('more refusals', () => {
  it('an internal key naming no workspace; analytics: a missing parameter, another workspace', async () => {
    const ghost = `wksp_${randomUUID()}`;
    const internal = await refusal('GET', '/v1/products', { key: INTERNAL, headers: { 'x-workspace-id': ghost } });
    expect(internal).toMatchObject({ status: 404, body: `{"error":"Workspace ${ghost} not found"}` });
    expect(internal.reason).toBe(`WORKSPACE_NOT_FOUND x-workspace-id names ${ghost}, which is no workspace of this sandbox`);
    const missing = await refusal('GET', '/v1/analytics/comms/delivery-events?from=2026-01-01');
    expect(missing).toMatchObject({ status: 400, body: '{"error":"Missing required query parameters: to, workspaceId"}' });
    expect(missing.reason).toMatch(/^MISSING_PARAMETER Missing required query parameters: to, workspaceId /);
    const live = s.workspaces.find((w) => w.mode === 'live')!.id;
    const other = await refusal('GET', `/v1/analytics/comms/delivery-events?from=2026-01-01&to=2026-01-02&workspaceId=${ghost}`);
    expect(other).toMatchObject({ status: 403, body: '{"error":"Forbidden"}' });
    expect(other.reason).toBe(`OTHER_WORKSPACE workspaceId must be the key's own workspace, ${live}`);
  });

  it('a key of a deleted workspace is gone with it: no key matches', async () => {
    const created = await j(fetch(`${s.controlUrl}/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    const key = created.data.keys[0].key as string;
    expect((await call('GET', '/v1/products?limit=1', { key })).status).toBe(200);
    await fetch(`${s.controlUrl}/workspaces/${created.data.id}`, { method: 'DELETE' });
    const r = await refusal('GET', '/v1/products', { key });
    expect(r).toMatchObject({ status: 401, body: '{"error":"Unauthorized"}' });
    expect(r.reason).toBe(`UNKNOWN_KEY no key matches ${key.slice(0, 16)}...; the keys are in \`sandbox keys list\` and the inspector's Keys view`);
  });
});

describe('fault rules', () => {
  const addFault = async (rule: Record<string, unknown>) =>
    (await j(fetch(`${s.controlUrl}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) }))).data as {
      id: string;
    };

  it("an answer names the rule; the rule's body is sent as given", async () => {
    const rule = await addFault({ path: '/v1/people/*', status: 503, body: { error: 'down' }, times: 2 });
    const r = await refusal('GET', `/v1/people/ppl_${randomUUID()}`);
    expect(r).toMatchObject({ status: 503, body: '{"error":"down"}' });
    expect(r.reason).toBe(
      `FAULT_INJECTED fault rule ${rule.id} answered 503 (1 more use; DELETE /__sandbox/faults/${rule.id} or \`sandbox fault clear ${rule.id}\` removes it)`,
    );
    await fetch(`${s.controlUrl}/faults/${rule.id}`, { method: 'DELETE' });
  });

  it('a dropped connection is in the request log with status 0 and the rule', async () => {
    const rule = await addFault({ path: '/v1/forms', drop: true });
    await expect(call('GET', '/v1/forms')).rejects.toThrow();
    const deadline = Date.now() + 15_000;
    let entry: { status: number; reason?: string } | undefined;
    while (!entry && Date.now() < deadline) {
      const log = (await j(fetch(`${s.controlUrl}/requests?limit=5`))).data as { path: string; status: number; reason?: string }[];
      entry = log.find((e) => e.path === '/v1/forms' && e.status === 0);
      if (!entry) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(entry?.reason).toBe(
      `FAULT_DROPPED fault rule ${rule.id} dropped the connection (0 more uses; DELETE /__sandbox/faults/${rule.id} or \`sandbox fault clear ${rule.id}\` removes it)`,
    );
  });
});

describe('where else a reason shows', () => {
  it('a 200 has no reason, neither as a header nor in the log', async () => {
    const res = await call('GET', '/v1/products?limit=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-reason')).toBeNull();
    const log = (await j(fetch(`${s.controlUrl}/requests?limit=10`))).data as { requestId: string; reason?: string }[];
    expect(log.find((e) => e.requestId === res.headers.get('x-request-id'))).not.toHaveProperty('reason');
  });

  it('sandbox logs prints the reason on the request line, after the status', async () => {
    await call('GET', '/v1/products?logs=1', { authorization: 'Token abc' });
    const out = await runCliInProcess(['logs', '--path', '/v1/products?logs=1', '--url', s.url]);
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split('\n')).toHaveLength(1);
    expect(out.stdout).toMatch(/GET\s+\/v1\/products\?logs=1\s+401\s+[\d.]+ms\s+-\s+NOT_BEARER the Authorization scheme is "Token", not Bearer/);
  });

  it('every code of the catalogue is documented in docs/api-notes.md', async () => {
    const { readFile } = await import('node:fs/promises');
    const notes = await readFile(new URL('../../docs/api-notes.md', import.meta.url), 'utf8');
    const missing = ALL_REASON_CODES.filter((code) => !notes.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });
});
