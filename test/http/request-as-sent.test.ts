import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskAuthorization } from '../../src/http/request-capture.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * Show what was sent: the request log keeps the Authorization scheme and the key's
 * listing prefix (never the key), says when a key is unknown, names the key and workspace of a
 * refused request whenever the sandbox can tell them, and keeps /v1 bodies with no viewer open.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

/** the fixture key's listing prefix, as `sandbox keys list` shows it */
const FIXTURE_PREFIX = 'tcs_test_borealis_f';
const logged = async (id: string) => (await t.request('GET', `/__sandbox/requests/${id}`, { key: null })).json().data;

describe('maskAuthorization', () => {
  it('keeps the scheme as written and the listing prefix, and says when the key is unknown', () => {
    expect(maskAuthorization(`Token ${KEYS.sandboxFull}`, 'tcs_test_borealis_f')).toBe('Token tcs_test_borealis_f…');
    expect(maskAuthorization(`bearer ${KEYS.sandboxFull}`, 'tcs_test_borealis_f')).toBe('bearer tcs_test_borealis_f…');
    expect(maskAuthorization(KEYS.sandboxFull, 'tcs_test_borealis_f')).toBe('tcs_test_borealis_f…');
    expect(maskAuthorization('Bearer tcs_test_not_a_key_0000000000000000', null)).toBe('Bearer tcs_test_not_a_k… (not a known key)');
    expect(maskAuthorization('Bearer abc', null)).toBe('Bearer a… (not a known key)');
  });
});

describe('the request log of a refused request', () => {
  it('a Token request: the scheme kept, the key and workspace named, its body kept', async () => {
    const body = { departureId: 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac', adults: 2 };
    const res = await t.request('POST', '/v1/bookings', {
      key: null,
      body,
      headers: { authorization: `Token ${KEYS.sandboxFull}`, 'x-request-id': 'req-token' },
    });
    expect(res.statusCode).toBe(401);
    const entry = await logged('req-token');
    expect(entry).toMatchObject({ status: 401, workspaceId: t.sandboxWorkspaceId, keyPrefix: FIXTURE_PREFIX });
    expect(entry.detail.request.headers.authorization).toBe(`Token ${FIXTURE_PREFIX}…`);
    expect(JSON.parse(entry.detail.request.body)).toEqual(body);
    expect(JSON.stringify(entry)).not.toContain(KEYS.sandboxFull);
  });

  it('KEY_REVOKED: the key and workspace named', async () => {
    const created = (await t.request('POST', `/__sandbox/workspaces/${t.sandboxWorkspaceId}/keys`, { key: null, body: { name: 'to revoke' } })).json().data;
    expect((await t.request('DELETE', `/__sandbox/keys/${created.id}`, { key: null })).statusCode).toBe(200);
    const res = await t.request('GET', '/v1/products?limit=1', { key: created.key, headers: { 'x-request-id': 'req-revoked' } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['x-sandbox-reason']).toMatch(/^KEY_REVOKED /);
    expect(await logged('req-revoked')).toMatchObject({ workspaceId: t.sandboxWorkspaceId, keyPrefix: created.keyPrefix });
  });

  it('an unknown key: no key or workspace, and the header says the key is not known', async () => {
    await t.request('GET', '/v1/products', { key: 'tcs_test_not_a_key_0000000000000000', headers: { 'x-request-id': 'req-unknown' } });
    const entry = await logged('req-unknown');
    expect(entry).toMatchObject({ workspaceId: null, keyPrefix: null });
    expect(entry.detail.request.headers.authorization).toBe('Bearer tcs_test_not_a_k… (not a known key)');
  });
});
