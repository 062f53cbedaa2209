import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/core/error-codes.ts';
import { WARNING_CODES } from '../../../src/core/warnings.ts';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { pickDeparture, setSeats } from '../booking-flow/helpers.ts';

/** Business-rule errors carry a stable code; documented bodies stay exactly as documented. */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const book = (body: Record<string, unknown>) => t.request('POST', '/v1/bookings', { body });

describe('business-rule errors carry a stable code next to error', () => {
  it('SOLD_OUT, UNKNOWN_COUPON, CURRENCY_MISMATCH, INVALID_TRANSITION', async () => {
    const open = pickDeparture(t, { rooms: false });
    const soldOut = pickDeparture(t, { rooms: false, exclude: [open.departure.id] });
    await setSeats(t, soldOut.departure, 0, 'sold_out');
    const sold = await book({ departureId: soldOut.departure.id, adults: 1 });
    expect(sold.statusCode).toBe(409);
    expect(sold.json()).toEqual({ error: `Departure ${soldOut.departure.id} is sold out`, code: 'SOLD_OUT' });

    const coupon = await book({ departureId: open.departure.id, adults: 1, couponCode: 'NOPE' });
    expect(coupon.statusCode).toBe(400);
    expect(coupon.json()).toEqual({ error: 'Unknown coupon code "NOPE"', code: 'UNKNOWN_COUPON' });

    const currency = open.departure.currency === 'USD' ? 'EUR' : 'USD';
    const mismatch = await book({ departureId: open.departure.id, adults: 1, currency });
    expect(mismatch.json()).toMatchObject({ code: 'CURRENCY_MISMATCH' });

    const id = (await book({ departureId: open.departure.id, adults: 1, status: 'cancelled' })).json().data.id;
    const move = await t.request('PATCH', `/v1/bookings/${id}`, { body: { status: 'confirmed' } });
    expect(move.statusCode).toBe(409);
    expect(move.json()).toMatchObject({ code: 'INVALID_TRANSITION', from: 'cancelled', to: 'confirmed', allowed: [] });
  });

  it('the documented bodies stay exactly as documented: 401, 403, 404, 429 and the analytics 400', async () => {
    expect((await t.request('GET', '/v1/products', { key: null })).json()).toEqual({ error: 'Unauthorized' });
    expect((await t.request('GET', '/v1/webhooks/subscriptions', { key: KEYS.liveRead })).json()).toEqual({ error: 'Forbidden' });
    expect((await t.request('GET', '/v1/webhooks/subscriptions/whsub_00000000-0000-4000-8000-000000000000')).json()).toEqual({
      error: 'Webhook subscription not found',
    });
    expect(Object.keys((await t.request('GET', '/v1/analytics/comms/delivery-events')).json())).toEqual(['error']);
    const limited = await testSandbox();
    try {
      let res;
      do res = await limited.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxRead });
      while (res.statusCode !== 429);
      expect(Object.keys(res.json()).sort()).toEqual(['error', 'retry_after']);
    } finally {
      await limited.sandbox.stop();
    }
  });
});

describe('the catalogues are published', () => {
  it('in the OpenAPI document, on the error body schema', async () => {
    const doc = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json();
    const text = JSON.stringify(doc);
    for (const code of Object.keys(ERROR_CODES)) expect(text, code).toContain(`"${code}"`);
  });

  it('in docs/api-notes.md: every error code and every warning code', () => {
    const notes = readFileSync(new URL('../../../docs/api-notes.md', import.meta.url), 'utf8');
    for (const code of [...Object.keys(ERROR_CODES), ...Object.keys(WARNING_CODES)]) expect(notes, code).toContain(`\`${code}\``);
  });
});
