import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const FIXTURE_ID = 'whsub_7a6aa769-2d4b-4f99-bff2-fd11c7483741';
const create = (body: unknown, key?: string) => t.request('POST', '/v1/webhooks/subscriptions', { body, ...(key ? { key } : {}) });
const patch = (id: string, body: unknown) => t.request('PATCH', `/v1/webhooks/subscriptions/${id}`, { body });

describe('webhook subscriptions /v1/webhooks/subscriptions', () => {
  it('lists and gets subscriptions in {data}, snake_case, without the secret', async () => {
    const list = await t.request('GET', '/v1/webhooks/subscriptions');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((s: { id: string }) => s.id)).toContain(FIXTURE_ID);
    expect(list.body).not.toContain('whsec_');
    const one = await t.request('GET', `/v1/webhooks/subscriptions/${FIXTURE_ID}`);
    expect(one.json().data).toMatchObject({ id: FIXTURE_ID, max_retries: 5, active: false, failure_count: 0, last_delivery_at: null });
    expect(one.json().data).not.toHaveProperty('secret');
  });

  it('accepts the bare uuid, rejects a wrong prefix (400) and answers 404 when missing', async () => {
    expect((await t.request('GET', `/v1/webhooks/subscriptions/${FIXTURE_ID.slice(6)}`)).json().data.id).toBe(FIXTURE_ID);
    expect((await t.request('GET', '/v1/webhooks/subscriptions/prod_7a6aa769-2d4b-4f99-bff2-fd11c7483741')).statusCode).toBe(400);
    const missing = await t.request('GET', '/v1/webhooks/subscriptions/whsub_00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Webhook subscription not found' });
    expect((await patch('whsub_00000000-0000-4000-8000-000000000000', { active: true })).statusCode).toBe(404);
  });

  it('needs webhooks:read to read and webhooks:write to change', async () => {
    expect((await t.request('GET', '/v1/webhooks/subscriptions', { key: KEYS.liveRead })).statusCode).toBe(403);
    expect((await create({ url: 'https://example.com/h', events: ['booking.*'] }, KEYS.liveRead)).statusCode).toBe(403);
    expect((await t.request('GET', '/v1/webhooks/subscriptions', { key: null })).statusCode).toBe(401);
  });

  it('creates with 201 and shows the signing secret once', async () => {
    const res = await create({ url: 'https://example.com/hooks', events: ['booking.created', 'product.*'], maxRetries: 2, headers: { 'X-Env': 'test' } });
    expect(res.statusCode).toBe(201);
    const sub = res.json().data;
    expect(sub).toMatchObject({
      url: 'https://example.com/hooks',
      max_retries: 2,
      active: true,
      headers: { 'X-Env': 'test' },
      description: null,
      failure_count: 0,
    });
    expect(sub.id).toMatch(/^whsub_[0-9a-f-]{36}$/);
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(sub.secret.slice(6), 'base64')).toHaveLength(32);
    expect((await t.request('GET', `/v1/webhooks/subscriptions/${sub.id}`)).body).not.toContain(sub.secret);
  });

  it('PATCH changes only the given fields; null clears headers and description', async () => {
    const { id } = (await create({ url: 'https://example.com/p', events: ['booking.*'], headers: { 'X-A': '1' }, description: 'd' })).json().data;
    const res = await patch(id, { maxRetries: 7, headers: null, description: null, events: ['payment.succeeded'], active: false });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id,
      url: 'https://example.com/p',
      max_retries: 7,
      headers: null,
      description: null,
      events: ['payment.succeeded'],
      active: false,
    });
    expect((await patch(id, { headers: { 'X-B': '2' } })).json().data.headers).toEqual({ 'X-B': '2' });
  });

  it.each([
    ['an empty body', {}],
    ['http on a public host', { url: 'http://example.com/hooks' }],
    ['a non-URL', { url: 'not a url' }],
    ['no events', { events: [] }],
    ['a malformed event name', { events: ['Booking Created'] }],
    ['an event name without an action', { events: ['booking'] }],
    ['maxRetries 11', { maxRetries: 11 }],
    ['maxRetries -1', { maxRetries: -1 }],
    ['headers not an object', { headers: 'x' }],
    ['a reserved header', { headers: { 'Webhook-Signature': 'x' } }],
    ['active not a boolean', { active: 'yes' }],
    ['only the response name max_retries (no known field)', { max_retries: 3 }],
  ])('PATCH with %s is a 400 VALIDATION_400', async (_name, body) => {
    const res = await patch(FIXTURE_ID, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: expect.any(String), code: 'VALIDATION_400', details: expect.arrayContaining([{ message: expect.any(String) }]) });
  });

  it('accepts http:// for loopback receivers and https:// anywhere', async () => {
    for (const url of ['http://localhost:3000/webhooks', 'http://127.0.0.1:3000/w', 'http://[::1]:3000/w', 'https://hooks.example.com/x']) {
      expect((await patch(FIXTURE_ID, { url })).statusCode, url).toBe(200);
    }
  });

  it('DELETE answers 204 and the subscription is gone', async () => {
    const { id } = (await create({ url: 'https://example.com/d', events: ['*'] })).json().data;
    const res = await t.request('DELETE', `/v1/webhooks/subscriptions/${id}`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request('GET', `/v1/webhooks/subscriptions/${id}`)).statusCode).toBe(404);
    expect((await t.request('DELETE', `/v1/webhooks/subscriptions/${id}`)).statusCode).toBe(404);
  });
});

describe('strictWebhookUrls', () => {
  it('refuses http:// even for loopback hosts', async () => {
    const strict = await testSandbox({ enforceRateLimits: false, strictWebhookUrls: true });
    try {
      const res = await strict.request('PATCH', `/v1/webhooks/subscriptions/${FIXTURE_ID}`, { body: { url: 'http://127.0.0.1:3000/w' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].message).toMatch(/strictWebhookUrls/);
    } finally {
      await strict.sandbox.stop();
    }
  });
});
