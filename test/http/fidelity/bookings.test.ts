import { describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { pickDeparture } from '../booking-flow/helpers.ts';
import { lenientAndStrict } from './helpers.ts';

/** POST /v1/bookings accepts what the description leaves open, with warnings. */
let t: TestSandbox;
let strict: TestSandbox;
lenientAndStrict((lenient, strictOne) => {
  t = lenient;
  strict = strictOne;
});

const book = (s: TestSandbox, body: Record<string, unknown>) =>
  s.request('POST', '/v1/bookings', { body: { departureId: pickDeparture(s, { rooms: false }).departure.id, adults: 1, ...body } });

describe('bookings leniency', () => {
  it('addonQuantity alone is priced as unnamed add-ons at zero cost, with an ADDONS_NOT_NAMED warning', async () => {
    const plain = (await book(t, {})).json().data;
    const res = await book(t, { addonQuantity: 2 });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data.addonQuantity).toBe(2);
    expect(data.totals).toEqual(plain.totals);
    expect(data.items.filter((i: { kind: string }) => i.kind === 'extension')).toEqual([]);
    expect(res.headers['x-sandbox-warning']).toBe('ADDONS_NOT_NAMED: body.addonQuantity 2 came without addons: priced as unnamed add-ons at zero cost');
  });

  it('unnamed add-on units survive adding items (a re-price)', async () => {
    const id = (await book(t, { addonQuantity: 3 })).json().data.id;
    const res = await t.request('POST', `/v1/bookings/${id}/items`, { body: { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ adults: 2, addonQuantity: 3 });
  });

  it('a price request with addonQuantity alone is priced too, with the same warning', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const res = await t.request('POST', `/v1/departures/${departure.id}/price`, { body: { adults: 1, addonQuantity: 1 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-sandbox-warning']).toMatch(/^ADDONS_NOT_NAMED/);
  });

  it("a client pricingSnapshot that is not quote-shaped is stored exactly as sent, with a warning; totals are the server's", async () => {
    const plain = (await book(t, {})).json().data;
    const snapshot = { total: 'free', source: { system: 'legacy', ref: 42 } };
    const res = await book(t, { attributes: { pricingSnapshot: snapshot, channelRef: 7 } });
    expect(res.statusCode, res.body).toBe(201);
    const data = res.json().data;
    expect(data.attributes).toEqual({ pricingSnapshot: snapshot, channelRef: 7 });
    expect(data.totals).toEqual(plain.totals);
    expect(res.headers['x-sandbox-warning']).toMatch(/^PRICING_SNAPSHOT_NOT_A_QUOTE: body\.attributes\.pricingSnapshot is not quote-shaped/);
    const read = (await t.request('GET', `/v1/bookings/${data.id}`)).json().data;
    expect(read.attributes.pricingSnapshot).toEqual(snapshot);
  });

  it('payment and fulfillment statuses outside the inferred lists are stored, each with a warning', async () => {
    const res = await book(t, { paymentStatus: 'authorized', fulfillmentStatus: 'ticketed' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ paymentStatus: 'authorized', fulfillmentStatus: 'ticketed' });
    const header = String(res.headers['x-sandbox-warning']);
    expect(header.split('; ').map((line) => line.split(':')[0])).toEqual(['UNKNOWN_PAYMENT_STATUS', 'UNKNOWN_FULFILLMENT_STATUS']);
  });

  it('known values carry no warning; a status that is not one word is still a 400', async () => {
    const res = await book(t, { paymentStatus: 'paid', fulfillmentStatus: 'fulfilled', status: 'confirmed' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
    expect((await book(t, { paymentStatus: 'paid in full' })).statusCode).toBe(400);
  });

  it('strict mode refuses each of them with 400 VALIDATION_400 and books nothing', async () => {
    const before = strict.sandbox.store.list('bookings', strict.liveWorkspaceId).length;
    for (const body of [
      { addonQuantity: 2 },
      { attributes: { pricingSnapshot: 'mine' } },
      { paymentStatus: 'authorized' },
      { fulfillmentStatus: 'ticketed' },
    ]) {
      const res = await book(strict, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_400');
    }
    expect(strict.sandbox.store.list('bookings', strict.liveWorkspaceId).length).toBe(before);
  });
});
