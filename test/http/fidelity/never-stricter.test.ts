/**
 * Never stricter than the API description (docs/api-notes.md, "Requests and responses";
 * docs/bookings.md, "Pricing"):
 * - a request with no body on a route whose every body field is optional or has a default is
 *   that route's defaults, as `{}` would be (the organization key's fields all have one);
 * - the adults count, which the description lists among the booking's body fields and does not
 *   require, defaults to 1 with a departure: ASSUMED_DEFAULT says so, and --strict refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { orgOf } from '../areas/helpers.ts';
import { book, departureNow, pickDeparture } from '../booking-flow/helpers.ts';

const JSON_TYPE = { 'content-type': 'application/json' };
const ASSUMED_ADULTS =
  'ASSUMED_DEFAULT: body.adults is missing: 1 adult assumed, as the API description lists an adults count but states no default (send adults to choose)';
const STRICT_REFUSAL = {
  error: 'Strict mode: the sandbox would have had to guess to accept this request',
  code: 'VALIDATION_400',
  details: [{ message: ASSUMED_ADULTS }],
};

let t: TestSandbox;
let strict: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  strict = await testSandbox({ enforceRateLimits: false, strict: true });
});
afterAll(async () => {
  await t.sandbox.stop();
  await strict.sandbox.stop();
});

const bookingsOf = (s: TestSandbox) => s.sandbox.store.list('bookings', s.liveWorkspaceId).length;

describe('a zero-byte body where every body field has a default', () => {
  it.each([
    ['with Content-Type: application/json', JSON_TYPE],
    ['without a Content-Type', {}],
  ])('POST /v1/organizations/:id/api-keys %s issues a key with the described defaults, under --strict too', async (_name, headers) => {
    for (const s of [t, strict]) {
      const org = await orgOf(s, s.liveWorkspaceId);
      const res = await s.request('POST', `/v1/organizations/${org}/api-keys`, { payload: '', headers: { ...headers } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({
        data: {
          id: expect.stringMatching(/^orgkey_/),
          organizationId: org,
          issuedByWorkspaceId: s.liveWorkspaceId,
          key: expect.stringMatching(/^org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/),
          keyPrefix: expect.stringMatching(/^[A-Za-z0-9]{8}$/),
          scopes: [],
          productIds: [],
          status: 'active',
          expiresAt: null,
          rateLimitPolicy: { rps: 30, rpm: 3000, burst: 30 },
          createdAt: expect.any(String),
        },
      });
      expect(res.headers['x-sandbox-warning']).toBeUndefined();
    }
  });

  it('POST /v1/bookings is the empty booking `{}` makes, under --strict too', async () => {
    for (const s of [t, strict]) {
      const res = await s.request('POST', '/v1/bookings', { payload: '', headers: JSON_TYPE });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data).toMatchObject({ status: 'pending', departureId: null, productId: null, adults: 0, totals: { total: 0 } });
      expect(res.headers['x-sandbox-warning']).toBeUndefined();
    }
  });

  it('the control plane too: POST /__sandbox/workspaces makes a workspace of the default template', async () => {
    const res = await t.request('POST', '/__sandbox/workspaces', { payload: '', headers: JSON_TYPE, key: null });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ created: true, mode: 'sandbox', templateId: t.sandboxWorkspaceId });
    await t.request('DELETE', `/__sandbox/workspaces/${res.json().data.id}`, { key: null });
  });

  it('a route with a required field still answers 400, naming the empty body', async () => {
    const res = await t.request('POST', '/v1/forms', { payload: '', headers: JSON_TYPE });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      code: 'VALIDATION_400',
      details: [{ message: 'body: the request body is empty; send a JSON object' }],
    });
  });

  it('the OpenAPI document says such a body may be left out, and the others may not', async () => {
    const doc = JSON.parse((await t.request('GET', '/__sandbox/openapi.json', { key: null })).body);
    expect(doc.paths['/v1/organizations/{id}/api-keys'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/bookings'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/forms'].post.requestBody.required).toBe(true);
    expect(doc.paths['/v1/gallery/folders'].post.requestBody.required).toBe(true);
  });
});

describe('a booking with a departure and no adults count', () => {
  it('books 1 adult and says it was assumed (X-Sandbox-Warning)', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const res = await book(t, { departureId: departure.id });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['x-sandbox-warning']).toBe(ASSUMED_ADULTS);
    expect(res.json().data).toMatchObject({ departureId: departure.id, status: 'pending', adults: 1, children: 0, infants: 0 });
    expect(res.json().data.totals.subtotal).toBeGreaterThan(0);
    expect(departureNow(t, departure.id).seatsLeft).toBe(departure.seatsLeft - 1);
  });

  it('is refused under --strict with the warning as its detail, and nothing is written', async () => {
    const { departure } = pickDeparture(strict, { rooms: false });
    const before = bookingsOf(strict);
    const res = await book(strict, { departureId: departure.id });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(STRICT_REFUSAL);
    expect(res.headers['x-sandbox-warning']).toBe(ASSUMED_ADULTS);
    expect(bookingsOf(strict)).toBe(before);
    expect(departureNow(strict, departure.id).seatsLeft).toBe(departure.seatsLeft);
  });

  it('with adults sent, or without a departure, nothing is assumed', async () => {
    const { departure } = pickDeparture(strict, { rooms: false });
    const sent = await book(strict, { departureId: departure.id, adults: 2 });
    expect(sent.statusCode, sent.body).toBe(201);
    expect(sent.headers['x-sandbox-warning']).toBeUndefined();
    const empty = await book(strict, { currency: 'EUR' });
    expect(empty.statusCode, empty.body).toBe(201);
    expect(empty.json().data).toMatchObject({ departureId: null, adults: 0 });
    expect(empty.headers['x-sandbox-warning']).toBeUndefined();
  });

  it('a price request without adults (or with no body) quotes 1 adult, with the same warning; refused under --strict', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const one = await t.request('POST', `/v1/departures/${departure.id}/price`, { body: { adults: 1 } });
    for (const payload of ['{}', '']) {
      const res = await t.request('POST', `/v1/departures/${departure.id}/price`, { payload, headers: JSON_TYPE });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['x-sandbox-warning']).toBe(ASSUMED_ADULTS);
      expect({ ...res.json().data, quotedAt: null }).toEqual({ ...one.json().data, quotedAt: null });
    }
    const refused = await strict.request('POST', `/v1/departures/${pickDeparture(strict, { rooms: false }).departure.id}/price`, { body: {} });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual(STRICT_REFUSAL);
  });

  it('the OpenAPI document marks the default inferred and requires no adults', async () => {
    const doc = JSON.parse((await t.request('GET', '/__sandbox/openapi.json', { key: null })).body);
    const body = doc.paths['/v1/bookings'].post.requestBody.content['application/json'].schema;
    const schema = body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body;
    expect(schema.required ?? []).not.toContain('adults');
    expect(schema.properties.adults).toMatchObject({ 'x-sandbox-inferred': true, description: expect.stringContaining('with departureId default 1') });
  });

  it('an organization key books the same way', async () => {
    const org = await orgOf(t, t.liveWorkspaceId);
    const key = (await t.request('POST', `/v1/organizations/${org}/api-keys`, { body: { scopes: ['bookings:write'] } })).json().data.key as string;
    const { departure } = pickDeparture(t, { rooms: false });
    const res = await book(t, { departureId: departure.id }, key);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.adults).toBe(1);
    expect(res.headers['x-sandbox-warning']).toBe(ASSUMED_ADULTS);
  });
});
