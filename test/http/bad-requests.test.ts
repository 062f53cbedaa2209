import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const validForm = { name: 'Contact', fields: [{ id: 'f1', type: 'text', label: 'Name', required: true }] };

describe('bad requests get a clear 4xx with the documented error body, never a 500', () => {
  it('malformed JSON gets 400', async () => {
    const res = await t.request('POST', '/v1/forms', { payload: '{"name": "x", ', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Malformed JSON body', code: 'MALFORMED_JSON' });
  });

  it('malformed JSON says where it breaks, by line and column, in the reason only', async () => {
    const payload = '{\n  "name": "x",\n  "fields": [1, 2,]\n}';
    const res = await t.request('POST', '/v1/forms', { payload, headers: { 'content-type': 'application/json' } });
    expect(res.json()).toEqual({ error: 'Malformed JSON body', code: 'MALFORMED_JSON' });
    expect(res.headers['x-sandbox-reason']).toBe('MALFORMED_JSON expected a value, found "]", at line 3, column 19 (character 35)');
    const cut = await t.request('POST', '/v1/forms', { payload: '{"name": "x", ', headers: { 'content-type': 'application/json' } });
    expect(cut.headers['x-sandbox-reason']).toBe('MALFORMED_JSON the body ends before its JSON does, at line 1, column 15 (character 14)');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'])(
    'Content-Type %s gets 415',
    async (type) => {
      const res = await t.request('POST', '/v1/forms', { payload: JSON.stringify(validForm), headers: { 'content-type': type } });
      expect(res.statusCode).toBe(415);
      expect(res.json().error).toMatch(/application\/json/);
    },
  );

  it('application/json with a charset is fine', async () => {
    const res = await t.request('POST', '/v1/forms', { payload: JSON.stringify(validForm), headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.statusCode).toBe(201);
  });

  it('a body over the limit gets 413 and writes nothing', async () => {
    const before = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data.forms.length;
    const huge = { ...validForm, description: 'x'.repeat(2 * 1024 * 1024) };
    const res = await t.request('POST', '/v1/forms', { body: huge });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatch(/larger than/);
    const after = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data.forms.length;
    expect(after).toBe(before);
  });

  it('an empty JSON body gets 400', async () => {
    const res = await t.request('POST', '/v1/forms', { payload: '', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
  });

  it('wrong types get 400 VALIDATION_400 with details naming the field', async () => {
    const res = await t.request('POST', '/v1/forms', { body: { name: 42, fields: 'no' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_400' });
    expect(body.details.map((d: { message: string }) => d.message).join(' ')).toMatch(/body\.name/);
    for (const d of body.details) expect(Object.keys(d)).toEqual(['message']);
  });

  it.each(['[]', '"string"', '12', 'null', 'true'])('a JSON body that is not an object (%s) gets 400', async (payload) => {
    const res = await t.request('POST', '/v1/forms', { payload, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
  });

  it('unknown routes get a JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/v1/unknown'],
      ['DELETE', '/v1/products'],
      ['GET', '/v2/products'],
      ['POST', '/'],
    ] as const) {
      const res = await t.request(method, path);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatch(/not found/);
    }
  });

  it('a wrong id prefix gets 400 naming the field; an unknown id gets 404', async () => {
    const wrong = await t.request('GET', '/v1/products/book_00000000-0000-4000-8000-000000000000');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/Invalid id: expected an id of the form prod_<uuid>/);
    const garbage = await t.request('GET', '/v1/products/%00%ff');
    expect(garbage.statusCode).toBe(400);
    const unknown = await t.request('GET', '/v1/products/prod_00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Product not found' });
  });

  it('a bare UUID is accepted where the prefixed id is expected', async () => {
    const list = await t.request('GET', '/v1/products?limit=1');
    const id: string = list.json().data[0].id;
    const res = await t.request('GET', `/v1/products/${id.slice('prod_'.length)}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.id).toBe(id);
  });

  it('a battery of malformed inputs never gets a 500', async () => {
    const cases: Array<[string, string, { payload?: string; headers?: Record<string, string> }]> = [
      ['GET', '/v1/products?limit=abc', {}],
      ['GET', '/v1/products?limit=-1', {}],
      ['GET', '/v1/products?limit=1e3', {}],
      ['GET', '/v1/products?offset=1.5', {}],
      ['GET', '/v1/products?limit=1&limit=2', {}],
      ['GET', '/v1/products?sort=__proto__', {}],
      ['GET', '/v1/products?status=active&status=draft', {}],
      ['GET', '/v1/products?type=%E0%A4%A', {}],
      ['GET', `/v1/products/${'a'.repeat(5000)}`, {}],
      ['POST', '/v1/forms', { payload: '{"__proto__": {"polluted": true}, "name": "x", "fields": []}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/v1/forms', { payload: '{"constructor": {"prototype": {"x": 1}}}', headers: { 'content-type': 'application/json' } }],
      ['POST', '/v1/forms', { payload: '\u0000\u0001', headers: { 'content-type': 'application/json' } }],
      [
        'POST',
        '/v1/forms',
        { payload: JSON.stringify({ name: 'x', fields: [], settings: { redirect_url: 'not a url' } }), headers: { 'content-type': 'application/json' } },
      ],
      ['POST', '/v1/forms', { payload: '{}', headers: { 'content-type': 'application/json; charset=latin1' } }],
      ['PATCH', '/v1/products', { payload: '{}', headers: { 'content-type': 'application/json' } }],
      ['GET', '/v1/products', { headers: { authorization: 'Bearer' } }],
      ['GET', '/v1/products', { headers: { authorization: `Bearer ${'x'.repeat(10000)}` } }],
    ];
    for (const [method, path, opts] of cases) {
      const res = await t.request(method, path, opts);
      expect(res.statusCode, `${method} ${path} ${opts.payload ?? ''}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${method} ${path}`).toBeLessThan(500);
      expect(typeof res.json().error).toBe('string');
      expect(res.body).not.toMatch(/at .*\.ts:\d+/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
