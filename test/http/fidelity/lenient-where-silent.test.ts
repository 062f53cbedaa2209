/**
 * Where the API description is silent the sandbox is not stricter
 * than it. Each row: by default the request is answered, with an
 * X-Sandbox-Warning naming the inferred rule; under --strict (`strict: true`)
 * it gets the rule's own error, with the warning as its X-Sandbox-Reason.
 * docs/divergences.md has the same rows.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { orgOf } from '../areas/helpers.ts';
import { book, createPerson, pickDeparture } from '../booking-flow/helpers.ts';

let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());

async function aBooking(sandbox: TestSandbox): Promise<string> {
  const { departure } = pickDeparture(sandbox, { rooms: false });
  const res = await book(sandbox, { departureId: departure.id, adults: 1 });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

/** Each case: the request, and what --strict answers instead. */
const CASES: {
  name: string;
  send: (s: TestSandbox) => Promise<{ statusCode: number; headers: Record<string, unknown>; json(): unknown }>;
  strict: { status: number; code: string };
}[] = [
  {
    name: 'an analytics range over 366 days',
    send: (s) => s.request('GET', `/v1/analytics/comms/delivery-events?from=2024-01-01&to=2026-01-01&workspaceId=${s.liveWorkspaceId}`),
    strict: { status: 400, code: 'INVALID_DATE_RANGE' },
  },
  {
    name: 'a second e-mail verification code within 30 s',
    send: async (s) => {
      await s.request('POST', '/v1/verify/email/start', { body: { email: 'twice@example.com' } });
      return s.request('POST', '/v1/verify/email/start', { body: { email: 'twice@example.com' } });
    },
    strict: { status: 429, code: 'RESEND_TOO_SOON' },
  },
  {
    name: 'an empty PATCH of a booking',
    send: async (s) => s.request('PATCH', `/v1/bookings/${await aBooking(s)}`, { body: {} }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'an empty passengers list',
    send: async (s) => s.request('POST', `/v1/bookings/${await aBooking(s)}/passengers`, { body: { passengers: [] } }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'a booking language that is not a tag such as en or en-GB',
    send: (s) => book(s, { departureId: pickDeparture(s, { rooms: false }).departure.id, adults: 1, language: 'EN' }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'a booking code with a space and a slash ("custom booking code or reference (string)")',
    send: (s) => book(s, { departureId: pickDeparture(s, { rooms: false }).departure.id, adults: 1, code: 'REF 12/7' }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'an SMS phone written with spaces ("international format with leading plus")',
    send: (s) => s.request('POST', '/v1/verify/sms/start', { body: { phone: '+44 20 7946 0958' } }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'a form slug with capitals and underscores ("slug (string)")',
    send: (s) => s.request('POST', '/v1/forms', { body: { name: 'Slugged', slug: 'Spring_Trip', fields: [] } }),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'a booking list locale that is not shaped like en or en-GB',
    send: (s) => s.request('GET', '/v1/bookings?locale=zh-Hant'),
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'a passenger role that is not a lower-case word',
    send: async (s) => {
      const person = await createPerson(s);
      return s.request('POST', `/v1/bookings/${await aBooking(s)}/passengers`, { body: { passengers: [{ personId: person.id, role: 'Lead' }] } });
    },
    strict: { status: 400, code: 'VALIDATION_400' },
  },
  {
    name: 'an Idempotency-Key of 256 characters',
    send: (s) => s.request('POST', '/v1/forms', { body: { name: 'long key', fields: [] }, headers: { 'idempotency-key': 'k'.repeat(256) } }),
    strict: { status: 400, code: 'IDEMPOTENCY_KEY_INVALID' },
  },
];

describe('lenient where the description is silent, strict under --strict', () => {
  for (const c of CASES) {
    it(`${c.name}: answered with an INFERRED_LIMIT warning; refused ${c.strict.status} ${c.strict.code} under --strict`, async () => {
      t = await testSandbox({ enforceRateLimits: false });
      const lenient = await c.send(t);
      expect(lenient.statusCode).toBeLessThan(300);
      expect(String(lenient.headers['x-sandbox-warning'])).toMatch(/INFERRED_LIMIT: /);
      await t.sandbox.stop();

      t = await testSandbox({ enforceRateLimits: false, strict: true });
      const strict = await c.send(t);
      expect(strict.statusCode).toBe(c.strict.status);
      const body = strict.json() as { code?: string };
      if (c.strict.code !== 'RESEND_TOO_SOON') expect(body.code).toBe(c.strict.code);
      expect(String(strict.headers['x-sandbox-reason'] ?? strict.headers['x-sandbox-warning'])).toMatch(/INFERRED_LIMIT/);
    });
  }

  it('an organization key created with no body at all gets the described defaults', async () => {
    t = await testSandbox({ enforceRateLimits: false, strict: true });
    const org = await orgOf(t, t.liveWorkspaceId);
    const res = await t.request('POST', `/v1/organizations/${org}/api-keys`);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ scopes: [], productIds: [], expiresAt: null });
  });

  it('the subscription and organization-key lists honour limit and offset, and refuse a bad limit as every list does', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const org = await orgOf(t, t.liveWorkspaceId);
    for (let i = 0; i < 3; i++) await t.request('POST', `/v1/organizations/${org}/api-keys`, { body: {} });
    for (let i = 0; i < 3; i++)
      await t.request('POST', '/v1/webhooks/subscriptions', { body: { url: `https://example.com/hook${i}`, events: ['booking.created'] } });
    for (const path of [`/v1/organizations/${org}/api-keys`, '/v1/webhooks/subscriptions']) {
      const all = (await t.request('GET', path)).json().data as { id: string }[];
      expect(all.length, path).toBeGreaterThanOrEqual(3);
      expect((await t.request('GET', `${path}?limit=1`)).json().data.map((r: { id: string }) => r.id)).toEqual([all[0]!.id]);
      expect((await t.request('GET', `${path}?limit=2&offset=1`)).json().data.map((r: { id: string }) => r.id)).toEqual([all[1]!.id, all[2]!.id]);
      for (const bad of ['limit=abc', 'limit=101', 'offset=-1']) expect((await t.request('GET', `${path}?${bad}`)).statusCode, `${path}?${bad}`).toBe(400);
    }
  });

  it('a loopback http:// webhook URL is accepted with LOOPBACK_HTTP_URL, under --strict too (a PATCH); an https one has no warning', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const res = await t.request('POST', '/v1/webhooks/subscriptions', {
      key: KEYS.liveFull,
      body: { url: 'http://127.0.0.1:9/hook', events: ['booking.created'] },
    });
    expect(res.statusCode).toBe(201);
    expect(String(res.headers['x-sandbox-warning'])).toMatch(/LOOPBACK_HTTP_URL: http:\/\/127\.0\.0\.1:9\/hook is plain http:\/\/ to a loopback host/);
    const https = await t.request('POST', '/v1/webhooks/subscriptions', { body: { url: 'https://example.com/hook', events: ['booking.created'] } });
    expect(String(https.headers['x-sandbox-warning'])).not.toMatch(/LOOPBACK_HTTP_URL/);
    await t.sandbox.stop();

    t = await testSandbox({ enforceRateLimits: false, strict: true });
    const [subscription] = (await t.request('GET', '/v1/webhooks/subscriptions')).json().data as { id: string }[];
    const patched = await t.request('PATCH', `/v1/webhooks/subscriptions/${subscription!.id}`, { body: { url: 'http://localhost:9/hook' } });
    expect(patched.statusCode).toBe(200);
    expect(String(patched.headers['x-sandbox-warning'])).toMatch(/^LOOPBACK_HTTP_URL: /);
  });
});
