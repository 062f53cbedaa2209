import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { issueKey, orgOf } from './helpers.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const TERMS = 'pol_d255f952-0999-4d9b-b391-31bd1029f6df';
const PRODUCT_POLICY = 'pol_77168dac-d952-41c6-99a2-3525b96951fc';
const PRODUCT = 'prod_49a14eb8-40c0-4c80-852e-0ebdc6613299';
const POLICY_FIELDS = [
  'billing_cancellation_policy_id',
  'created_at',
  'description_html',
  'id',
  'kind',
  'locale',
  'product_id',
  'scope',
  'slug',
  'status',
  'title',
  'updated_at',
  'workspace_id',
];

describe('GET /v1/policies/:id (Policies)', () => {
  it('answers the bare record with exactly the documented fields (no translations map)', async () => {
    const res = await t.request('GET', `/v1/policies/${TERMS}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(POLICY_FIELDS);
    expect(body).toMatchObject({
      id: TERMS,
      workspace_id: t.liveWorkspaceId,
      kind: 'terms',
      scope: 'generic',
      status: 'active',
      locale: 'en',
      title: 'Terms and Conditions',
    });
  });

  it('?locale=ro answers the translation; ro-RO falls back to ro; an unknown locale gets the original', async () => {
    const ro = (await t.request('GET', `/v1/policies/${TERMS}?locale=ro`)).json();
    expect(ro).toMatchObject({ locale: 'ro', title: 'Termeni și condiții' });
    expect(ro.description_html).toMatch(/Aurora Tours/);
    expect(Object.keys(ro).sort()).toEqual(POLICY_FIELDS);
    expect((await t.request('GET', `/v1/policies/${TERMS}?locale=ro-RO`)).json().title).toBe('Termeni și condiții');
    const de = (await t.request('GET', `/v1/policies/${TERMS}?locale=de`)).json();
    expect(de).toMatchObject({ locale: 'en', title: 'Terms and Conditions' });
    expect((await t.request('GET', `/v1/policies/${TERMS}?locale=en`)).json().title).toBe('Terms and Conditions');
  });

  it('a malformed locale -> 400', async () => {
    const res = await t.request('GET', `/v1/policies/${TERMS}?locale=${encodeURIComponent('<script>')}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_400');
  });

  it("unknown -> 404 {error}; wrong prefix -> 400; another workspace's -> 404", async () => {
    const missing = await t.request('GET', '/v1/policies/pol_00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Policy not found' });
    expect((await t.request('GET', '/v1/policies/form_00000000-0000-4000-8000-000000000000')).statusCode).toBe(400);
    expect((await t.request('GET', `/v1/policies/${TERMS}`, { key: KEYS.sandboxFull })).statusCode).toBe(404);
  });

  it('401 without a key; 403 without policies:read', async () => {
    expect((await t.request('GET', `/v1/policies/${TERMS}`, { key: null })).json()).toEqual({ error: 'Unauthorized' });
    expect((await t.request('GET', `/v1/policies/${TERMS}`, { key: KEYS.liveRead })).json()).toEqual({ error: 'Forbidden' });
  });

  it('a product policy is invisible to an organization key restricted to other products', async () => {
    const org = await orgOf(t, t.liveWorkspaceId);
    const other = (await t.request('GET', '/v1/products?limit=5')).json().data.find((p: { id: string }) => p.id !== PRODUCT).id;
    const restricted = await issueKey(t, org, { scopes: ['policies:read'], productIds: [other] });
    expect((await t.request('GET', `/v1/policies/${PRODUCT_POLICY}`, { key: restricted.key })).statusCode).toBe(404);
    expect((await t.request('GET', `/v1/policies/${TERMS}`, { key: restricted.key })).statusCode).toBe(200);
    const allowed = await issueKey(t, org, { scopes: ['policies:read'], productIds: [PRODUCT] });
    expect((await t.request('GET', `/v1/policies/${PRODUCT_POLICY}`, { key: allowed.key })).statusCode).toBe(200);
  });
});

describe('DELETE /v1/policies/:id', () => {
  it('answers {ok: true}; the policy is gone afterwards (GET and DELETE -> 404)', async () => {
    const id = 'pol_2549409e-6907-4db0-859e-ced4873193eb';
    const res = await t.request('DELETE', `/v1/policies/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expect((await t.request('GET', `/v1/policies/${id}`)).statusCode).toBe(404);
    expect((await t.request('DELETE', `/v1/policies/${id}`)).json()).toEqual({ error: 'Policy not found' });
  });

  it("403 without policies:write; 401 without a key; 400 for a malformed id; another workspace's -> 404", async () => {
    expect((await t.request('DELETE', `/v1/policies/${TERMS}`, { key: KEYS.liveRead })).statusCode).toBe(403);
    expect((await t.request('DELETE', `/v1/policies/${TERMS}`, { key: null })).statusCode).toBe(401);
    expect((await t.request('DELETE', '/v1/policies/nope')).statusCode).toBe(400);
    expect((await t.request('DELETE', `/v1/policies/${TERMS}`, { key: KEYS.sandboxFull })).statusCode).toBe(404);
    expect((await t.request('GET', `/v1/policies/${TERMS}`)).statusCode).toBe(200);
  });
});
