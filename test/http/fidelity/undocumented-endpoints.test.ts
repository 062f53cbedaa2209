import { describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { lenientAndStrict, SUBSCRIPTION } from './helpers.ts';

/**
 * The description lists GET, GET :id and PATCH under "Webhook subscriptions" and names
 * neither POST nor DELETE. Both are marked inferred in the OpenAPI document and every answer
 * carries an UNDOCUMENTED_ENDPOINT warning; --strict refuses them.
 */
let t: TestSandbox;
let strict: TestSandbox;
lenientAndStrict((lenient, strictOne) => {
  t = lenient;
  strict = strictOne;
});

const body = { url: 'https://example.com/hooks', events: ['booking.created'] };

describe('POST and DELETE /v1/webhooks/subscriptions', () => {
  it('answer with an UNDOCUMENTED_ENDPOINT warning, a 404 included', async () => {
    const created = await t.request('POST', '/v1/webhooks/subscriptions', { body });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['x-sandbox-warning']).toBe(
      'UNDOCUMENTED_ENDPOINT: POST /v1/webhooks/subscriptions is not in the API description (it names list, get and PATCH), designed by the sandbox, production may not have it',
    );
    const deleted = await t.request('DELETE', `/v1/webhooks/subscriptions/${created.json().data.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.headers['x-sandbox-warning']).toMatch(/^UNDOCUMENTED_ENDPOINT: DELETE \/v1\/webhooks\/subscriptions\/:id is not in the API description/);
    const again = await t.request('DELETE', `/v1/webhooks/subscriptions/${created.json().data.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.headers['x-sandbox-warning']).toMatch(/^UNDOCUMENTED_ENDPOINT/);
  });

  it('the documented ones carry no warning', async () => {
    for (const [method, path, payload] of [
      ['GET', '/v1/webhooks/subscriptions', undefined],
      ['GET', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, undefined],
      ['PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { description: 'ops' }],
    ] as const) {
      const res = await t.request(method, path, payload ? { body: payload } : {});
      expect(res.statusCode, `${method} ${path}`).toBe(200);
      expect(res.headers['x-sandbox-warning'], `${method} ${path}`).toBeUndefined();
    }
  });

  it('are marked inferred in the OpenAPI document', async () => {
    const doc = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json();
    expect(doc.paths['/v1/webhooks/subscriptions'].post['x-sandbox-inferred']).toBe(true);
    expect(doc.paths['/v1/webhooks/subscriptions/{id}'].delete['x-sandbox-inferred']).toBe(true);
    expect(doc.paths['/v1/webhooks/subscriptions/{id}'].patch['x-sandbox-inferred']).toBeUndefined();
  });

  it('strict mode refuses them with 400 VALIDATION_400 naming the warning', async () => {
    const res = await strict.request('POST', '/v1/webhooks/subscriptions', { body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/^UNDOCUMENTED_ENDPOINT/) }] });
  });
});
