import { describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../../src/core/events.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { pickDeparture } from '../booking-flow/helpers.ts';
import { lenientAndStrict, SUBSCRIPTION } from './helpers.ts';

/** Unknown body keys are ignored with a warning naming them, on every POST and PATCH. */
let t: TestSandbox;
let strict: TestSandbox;
lenientAndStrict((lenient, strictOne) => {
  t = lenient;
  strict = strictOne;
});

const warningHeader = (res: { headers: Record<string, unknown> }) => String(res.headers['x-sandbox-warning'] ?? '');

async function newBooking(s: TestSandbox): Promise<string> {
  const { departure } = pickDeparture(s);
  const res = await s.request('POST', '/v1/bookings', { body: { departureId: departure.id, adults: 1 } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

describe('unknown body keys', () => {
  it('a booking PATCH that sends back a record it read is accepted; the extra keys are named in X-Sandbox-Warning', async () => {
    const id = await newBooking(t);
    const res = await t.request('PATCH', `/v1/bookings/${id}`, { body: { id, code: 'X', notes: 'called the customer' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id, status: 'pending', notes: 'called the customer' });
    expect(warningHeader(res)).toBe('UNKNOWN_FIELD: ignored body.id, body.code: not a field of PATCH /v1/bookings/:id');
  });

  it('a webhook PATCH with max_retries next to known fields is accepted with a warning', async () => {
    const res = await t.request('PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { body: { id: SUBSCRIPTION, max_retries: 3, description: 'ops' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ description: 'ops', max_retries: 5 });
    expect(warningHeader(res)).toMatch(/^UNKNOWN_FIELD: ignored body\.id, body\.max_retries/);
  });

  it('a webhook PATCH with no known field at all stays a 400 VALIDATION_400 (the documented rule)', async () => {
    const res = await t.request('PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { body: { max_retries: 3 } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/at least one field/) }] });
  });

  it('parentId instead of parentFolderId creates the folder at the root, and says so', async () => {
    const res = await t.request('POST', '/v1/gallery/folders', { body: { name: 'Mistyped parent', parentId: '9f5bcbdd-3222-40d1-97a5-0ee47c76adff' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.parentId).toBeNull();
    expect(warningHeader(res)).toContain('body.parentId');
  });

  it('nested unknown keys are named by path; open objects (metadata, extras) have none', async () => {
    const id = await newBooking(t);
    const person = (
      await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/people`, {
        key: null,
        body: { firstName: 'A', lastName: 'B', email: 'a.b.nested@example.org' },
      })
    ).json().data;
    const res = await t.request('POST', `/v1/bookings/${id}/passengers`, {
      body: { passengers: [{ personId: person.id, role: 'lead', seat: '12A', extras: { anything: true } }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(warningHeader(res)).toBe('UNKNOWN_FIELD: ignored body.passengers.0.seat: not a field of POST /v1/bookings/:id/passengers');
  });

  it('a request without guesses carries no warning header', async () => {
    const res = await t.request('PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { body: { description: 'plain' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
  });

  it('the warning is on the request-log entry and on the bus the SSE stream forwards', async () => {
    const seen: RequestLogEntry[] = [];
    const off = t.sandbox.events.on('request', (e) => seen.push(e));
    await t.request('POST', '/v1/forms', { body: { name: 'Log me', fields: [], colour: 'red' } });
    off();
    const expected = [{ code: 'UNKNOWN_FIELD', message: 'ignored body.colour: not a field of POST /v1/forms' }];
    expect(seen[0]!.warnings).toEqual(expected);
    const log = (await t.request('GET', '/__sandbox/requests?limit=1', { key: null })).json().data;
    expect(log[0]).toMatchObject({ path: '/v1/forms', status: 201, warnings: expected });
  });

  it('a strict refusal claims no Idempotency-Key: the corrected retry with the same key succeeds', async () => {
    const headers = { 'idempotency-key': 'strict-retry-1' };
    const refused = await strict.request('POST', '/v1/forms', { body: { name: 'Retry', fields: [], colour: 'red' }, headers });
    expect(refused.statusCode).toBe(400);
    const retried = await strict.request('POST', '/v1/forms', { body: { name: 'Retry', fields: [] }, headers });
    expect(retried.statusCode, retried.body).toBe(201);
  });

  it('strict mode refuses the same request with 400 VALIDATION_400 and writes nothing', async () => {
    const id = await newBooking(strict);
    const res = await strict.request('PATCH', `/v1/bookings/${id}`, { body: { id, notes: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Strict mode: the sandbox would have had to guess to accept this request',
      code: 'VALIDATION_400',
      details: [{ message: 'UNKNOWN_FIELD: ignored body.id: not a field of PATCH /v1/bookings/:id' }],
    });
    expect(warningHeader(res)).toContain('UNKNOWN_FIELD');
    expect((await strict.request('GET', `/v1/bookings/${id}`)).json().data.notes).toBeNull();
  });
});
