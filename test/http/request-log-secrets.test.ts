import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The sandbox's own request log, run report and stream keep no whole key or secret, proxy or not:
 * not the organization key a creation answers with (shown once, by the API description), not a
 * subscription's signing secret, not a key a client put in a header the API does not read, nor one
 * in the URL ("keys are sent in the header only, never in URLs").
 */
const ORGANIZATION = 'org_c261cbe9-f001-48f7-8378-287203d1737a'; // fixtures/borealis-adventures.json
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

const control = async (path: string) => (await t.request('GET', `/__sandbox${path}`, { key: null })).body;

describe('the request log keeps no secret', () => {
  it('of an answer, a header or a URL; it shows each as its kind and length', async () => {
    const created = await t.request('POST', `/v1/organizations/${ORGANIZATION}/api-keys`, {
      key: KEYS.sandboxFull,
      body: { scopes: [] },
      headers: { 'x-request-id': 'req-org-key' },
    });
    expect(created.statusCode).toBe(201);
    const orgKey = (created.json() as { data: { key: string } }).data.key;
    const subscription = await t.request('POST', '/v1/webhooks/subscriptions', {
      key: KEYS.sandboxFull,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['booking.created'] },
      headers: { 'x-request-id': 'req-subscription' },
    });
    const secret = (subscription.json() as { data: { secret: string } }).data.secret;
    const inUrl = await t.request('GET', `/v1/products?limit=1&api_key=${orgKey}`, {
      key: null,
      headers: { 'x-api-key': KEYS.sandboxFull, 'x-request-id': 'req-in-url' },
    });
    expect(inUrl.statusCode).toBe(401);

    const kept = [
      await control('/requests?limit=100'),
      ...(await Promise.all(['req-org-key', 'req-subscription', 'req-in-url'].map((id) => control(`/requests/${id}`)))),
      await control('/report'),
    ].join('\n');
    for (const whole of [orgKey, secret, KEYS.sandboxFull]) expect(kept).not.toContain(whole);

    const orgKeyEntry = JSON.parse(await control('/requests/req-org-key')).data;
    expect(JSON.parse(orgKeyEntry.detail.response.body).data.key).toBe('[redacted organization key, 45 chars]');
    expect(JSON.parse(orgKeyEntry.detail.response.body).data.keyPrefix).toBe(orgKey.slice(4, 12)); // the listing prefix is not a secret
    const subscriptionEntry = JSON.parse(await control('/requests/req-subscription')).data;
    expect(JSON.parse(subscriptionEntry.detail.response.body).data.secret).toBe('[redacted webhook secret, 50 chars]');
    const inUrlEntry = JSON.parse(await control('/requests/req-in-url')).data;
    expect(inUrlEntry.path).toBe('/v1/products?limit=1&api_key=%5Bredacted%20organization%20key%2C%2045%20chars%5D');
    expect(inUrlEntry.detail.request.headers['x-api-key']).toBe('[redacted workspace key, 43 chars]');
  });
});
