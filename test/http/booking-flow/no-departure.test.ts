import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookingResponseSchema, type BookingView } from '../../../src/resources/bookings/requests.ts';
import { QuoteSchema } from '../../../src/resources/bookings/schemas.ts';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { settle, subscribe } from '../../webhooks/helpers.ts';
import { startReceiver, type Receiver } from '../../webhooks/receiver.ts';
import { book, createPerson, departureNow, orgKey, pickDeparture, setup } from './helpers.ts';

/**
 * "Items and passengers are not part of the create body; they are added
 * through their own endpoints afterwards" (API description, "Bookings"). A booking created
 * without a departure starts pending and empty, its first departure item names the departure and
 * prices it, and it then goes on as any other booking. Webhooks reach a real local receiver.
 */
let t: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  t = await setup();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.sandbox.stop();
});

const ok = async (method: string, path: string, body: unknown, status = 200) => {
  const res = await t.request(method, path, { body });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
};
const received = () => receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: BookingView });

describe('a booking created without a departure (steps share state, in order)', () => {
  let booking: BookingView;
  const pick = () => pickDeparture(t, { rooms: false, minSeats: 6 });

  it('is created pending, with no items, no seats held and zero totals', async () => {
    await subscribe(t, { url: receiver.url, events: ['booking.*'] });
    const seats = pick().departure.seatsLeft;
    const res = await book(t, { notes: 'phone booking', metadata: { ref: 'crm-1' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
    booking = BookingResponseSchema.parse(res.json()).data;
    expect(booking).toMatchObject({
      status: 'pending',
      departureId: null,
      productId: null,
      items: [],
      passengers: [],
      adults: 0,
      children: 0,
      infants: 0,
      currency: pick().departure.currency, // the workspace's currency (fixture departures are sold in it)
      totals: { subtotal: 0, taxes: 0, discounts: 0, total: 0 },
      notes: 'phone booking',
      metadata: { ref: 'crm-1' },
    });
    expect(QuoteSchema.parse(booking.attributes.pricingSnapshot)).toMatchObject({ lines: [], total: 0 });
    expect(departureNow(t, pick().departure.id).seatsLeft).toBe(seats);
    await settle(t);
    expect(received().map((e) => [e.type, e.data.id, e.data.status, e.data.totals.total])).toEqual([['booking.created', booking.id, 'pending', 0]]);
  });

  it('takes passengers only once items give it travellers', async () => {
    const person = await createPerson(t);
    const res = await t.request('POST', `/v1/bookings/${booking.id}/passengers`, { body: { passengers: [{ personId: person.id, role: 'lead' }] } });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('TOO_MANY_PASSENGERS');
  });

  it('refuses items that name no departure while it has none', async () => {
    const onlyType = await t.request('POST', `/v1/bookings/${booking.id}/items`, {
      body: { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] },
    });
    expect(onlyType.statusCode).toBe(400);
    expect(onlyType.json()).toMatchObject({
      code: 'DEPARTURE_REQUIRED',
      error: expect.stringMatching(/^Missing items\[0\]\.departureId: booking book_\S+ has no departure yet/),
    });
    const addon = pickDeparture(t, { extensions: 1 }).extensions[0]!;
    const onlyExtension = await t.request('POST', `/v1/bookings/${booking.id}/items`, {
      body: { items: [{ kind: 'extension', extensionId: addon.id, quantity: 1 }] },
    });
    expect(onlyExtension.statusCode).toBe(400);
    expect(onlyExtension.json().code).toBe('DEPARTURE_REQUIRED');
    const other = pickDeparture(t, { exclude: [pick().departure.id] }).departure.id;
    const two = await t.request('POST', `/v1/bookings/${booking.id}/items`, {
      body: {
        items: [
          { kind: 'departure', departureId: pick().departure.id, passengerType: 'adult', quantity: 1 },
          { kind: 'departure', departureId: other, passengerType: 'adult', quantity: 1 },
        ],
      },
    });
    expect(two.statusCode).toBe(400);
    expect(two.json()).toMatchObject({
      code: 'ITEM_DEPARTURE_MISMATCH',
      error: `Invalid items[1].departureId: the first departure item names ${pick().departure.id}`,
    });
    expect((await ok('GET', `/v1/bookings/${booking.id}`, undefined)).data).toMatchObject({ departureId: null, items: [], totals: { total: 0 } });
  });

  it('is priced by its first departure item, which names its departure and takes the seats', async () => {
    const { departure, product } = pick();
    const seats = departureNow(t, departure.id).seatsLeft;
    const quote = QuoteSchema.parse((await ok('POST', `/v1/departures/${departure.id}/price`, { adults: 2 })).data);
    const body = await ok(
      'POST',
      `/v1/bookings/${booking.id}/items`,
      { items: [{ kind: 'departure', departureId: departure.id, passengerType: 'adult', quantity: 2 }] },
      201,
    );
    booking = BookingResponseSchema.parse(body).data;
    expect(booking).toMatchObject({ status: 'pending', departureId: departure.id, productId: product.id, adults: 2, currency: quote.currency });
    expect(booking.totals).toEqual({ subtotal: quote.subtotal, taxes: quote.taxes, discounts: quote.discounts, total: quote.total });
    expect(booking.totals.total).toBeGreaterThan(0);
    expect(booking.items.map((i) => [i.kind, i.refId, i.quantity])).toEqual(quote.lines.map((l) => ['departure', departure.id, l.quantity]));
    expect(departureNow(t, departure.id).seatsLeft).toBe(seats - 2);
    // from now on it is an ordinary booking: a later item adds to it and must name the same departure
    const more = await ok('POST', `/v1/bookings/${booking.id}/items`, { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] }, 201);
    expect(more.data).toMatchObject({ adults: 3, departureId: departure.id });
    expect(departureNow(t, departure.id).seatsLeft).toBe(seats - 3);
    booking = more.data;
  });

  it('takes passengers, moves status, and reads back whole; every step is a webhook', async () => {
    const lead = await createPerson(t);
    const added = await ok('POST', `/v1/bookings/${booking.id}/passengers`, { passengers: [{ personId: lead.id, role: 'lead' }] });
    expect(added.passengers).toHaveLength(1);
    expect(await ok('PATCH', `/v1/bookings/${booking.id}`, { status: 'confirmed' })).toEqual({ id: booking.id, status: 'confirmed', notes: 'phone booking' });
    const read = BookingResponseSchema.parse(await ok('GET', `/v1/bookings/${booking.id}`, undefined)).data;
    expect(read).toMatchObject({ status: 'confirmed', customerId: lead.id, departureId: booking.departureId, adults: 3, totals: booking.totals });
    expect(read.passengers.map((p) => p.role)).toEqual(['lead']);
    const listed = await ok('GET', '/v1/bookings?limit=100', undefined);
    expect(listed.data.map((b: { id: string }) => b.id)).toContain(booking.id);
    await settle(t);
    expect(received().map((e) => [e.type, e.data.status, e.data.departureId, e.data.totals.total])).toEqual([
      ['booking.created', 'pending', null, 0],
      ['booking.updated', 'pending', booking.departureId, received()[1]!.data.totals.total],
      ['booking.updated', 'pending', booking.departureId, booking.totals.total],
      ['booking.updated', 'pending', booking.departureId, booking.totals.total],
      ['booking.updated', 'confirmed', booking.departureId, booking.totals.total],
    ]);
    expect(received()[1]!.data.totals.total).toBeGreaterThan(0);
  });
});

describe('a booking created without a departure, other cases', () => {
  it('keeps the party it was created with, and seats all of it with the first departure item', async () => {
    const { departure } = pickDeparture(t, { rooms: false, minSeats: 6 });
    const seats = departureNow(t, departure.id).seatsLeft;
    const created = await book(t, { adults: 2 });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data).toMatchObject({ adults: 2, departureId: null, totals: { total: 0 } });
    const priced = await ok(
      'POST',
      `/v1/bookings/${created.json().data.id}/items`,
      { items: [{ kind: 'departure', departureId: departure.id, passengerType: 'adult', quantity: 1 }] },
      201,
    );
    expect(priced.data).toMatchObject({ adults: 3, departureId: departure.id });
    expect(departureNow(t, departure.id).seatsLeft).toBe(seats - 3);
  });

  it('refuses add-ons without a departure, and a currency the departure is not sold in', async () => {
    const { departure, extensions } = pickDeparture(t, { extensions: 1 });
    const addons = await book(t, { addons: [{ extensionId: extensions[0]!.id, quantity: 1 }] });
    expect(addons.statusCode).toBe(400);
    expect(addons.json().code).toBe('DEPARTURE_REQUIRED');
    const other = departure.currency === 'USD' ? 'EUR' : 'USD';
    const created = await book(t, { currency: other });
    expect(created.json().data.currency).toBe(other);
    const res = await t.request('POST', `/v1/bookings/${created.json().data.id}/items`, {
      body: { items: [{ kind: 'departure', departureId: departure.id, passengerType: 'adult', quantity: 1 }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CURRENCY_MISMATCH' });
  });

  it('is refused to a key limited to products (it would belong to none, so the key could not read it back); an unlimited key creates it', async () => {
    const limited = await orgKey(t, { scopes: ['bookings:read', 'bookings:write'], productIds: [pickDeparture(t).product.id] });
    const res = await book(t, { adults: 1 }, limited);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'DEPARTURE_REQUIRED',
      error: expect.stringMatching(/^Missing departureId: key \S+ is limited to 1 product\(s\)/),
    });
    const unlimited = await orgKey(t, { scopes: ['bookings:read', 'bookings:write'] });
    const made = await book(t, {}, unlimited);
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().data).toMatchObject({ salesChannel: 'partner', departureId: null });
  });
});

describe('under --strict', () => {
  let strict: TestSandbox;
  beforeAll(async () => {
    strict = await testSandbox({ enforceRateLimits: false, strict: true });
  });
  afterAll(() => strict.sandbox.stop());

  it('creates it too: the description describes this create body, so nothing is guessed', async () => {
    const res = await book(strict, {});
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ status: 'pending', departureId: null, totals: { total: 0 } });
  });
});
