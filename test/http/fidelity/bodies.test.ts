import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { SUBSCRIPTION } from './helpers.ts';

/** Empty bodies and prototype keys. */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const JSON_TYPE = { 'content-type': 'application/json' };

describe('a zero-byte body on PATCH (point 2)', () => {
  it.each([
    ['with Content-Type: application/json', JSON_TYPE],
    ['without a Content-Type', {}],
  ])('is 400 {error, code: VALIDATION_400, details: [{message}]} %s', async (_name, headers) => {
    const res = await t.request('PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { payload: '', headers });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ error: expect.any(String), code: 'VALIDATION_400' });
    expect(body.details).toHaveLength(1);
    expect(body.details[0]).toEqual({ message: expect.stringMatching(/^body/) });
  });

  it('is the same shape on a POST that needs a body', async () => {
    const res = await t.request('POST', '/v1/forms', { payload: '', headers: JSON_TYPE });
    expect(res.json()).toEqual({
      error: 'Validation failed',
      code: 'VALIDATION_400',
      details: [{ message: 'body: the request body is empty; send a JSON object' }],
    });
  });
});

describe('GET and DELETE with Content-Type: application/json and no body (point 3)', () => {
  it('DELETE /v1/policies/:id is accepted', async () => {
    const policy = t.sandbox.store.list<{ id: string }>('policies', t.liveWorkspaceId)[0]!;
    const res = await t.request('DELETE', `/v1/policies/${policy.id}`, { payload: '', headers: JSON_TYPE });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it('GET /v1/products is accepted', async () => {
    const res = await t.request('GET', '/v1/products?limit=1', { payload: '', headers: JSON_TYPE });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('prototype keys (point 10)', () => {
  it('{"settings": {"__proto__": {...}}} is a 400 that says exactly why, not "Malformed JSON body"', async () => {
    const payload = '{"name":"Proto","fields":[],"settings":{"__proto__":{"polluted":true}}}';
    const res = await t.request('POST', '/v1/forms', { payload, headers: JSON_TYPE });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'VALIDATION_400',
      details: [{ message: expect.stringMatching(/^body\.settings\.__proto__: the key "__proto__" is refused/) }],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an escaped spelling is caught too, and nothing is written', async () => {
    const before = t.sandbox.store.list('forms', t.liveWorkspaceId).length;
    const payload = '{"name":"Proto","fields":[{"id":"a","type":"text","label":"A","required":true,"x":{"\\u005f_proto__":{"polluted":true}}}]}';
    const res = await t.request('POST', '/v1/forms', { payload, headers: JSON_TYPE });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toMatch(/^body\.fields\.0\.x\.__proto__/);
    expect(t.sandbox.store.list('forms', t.liveWorkspaceId).length).toBe(before);
  });

  it('"constructor" and "prototype" are ordinary keys, stored as data', async () => {
    const payload = JSON.stringify({ name: 'Ctor', fields: [], settings: { constructor: { prototype: { x: 1 } } } });
    const res = await t.request('POST', '/v1/forms', { payload, headers: JSON_TYPE });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().settings).toEqual({ constructor: { prototype: { x: 1 } } });
  });
});
