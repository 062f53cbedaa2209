import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/errors.ts';
import type { Coupon, PricingOption } from '../../../src/resources/catalog/schemas.ts';
import { adjustSeats } from '../../../src/resources/departures/pricing.ts';
import type { Departure } from '../../../src/resources/departures/schemas.ts';
import type { Product } from '../../../src/resources/products/schemas.ts';
import type { Quote } from '../../../src/resources/bookings/schemas.ts';
import type { Row } from '../../../src/storage/types.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { orgKey, pickDeparture, setup } from './helpers.ts';

/**
 * Pricing rules of src/resources/departures/pricing.ts, beyond the booking flow:
 * seat accounting and the status that follows it,
 * coupon matching and expiry, and the room a party gets by default.
 */
describe('seats and the departure status (adjustSeats)', () => {
  const departure = (seatsLeft: number, status: Departure['status'] = 'scheduled') =>
    ({ id: 'dept_1', capacity: 10, seatsLeft, status, updatedAt: 'before' }) as Departure;
  const product = { minPax: 4 } as Product;

  it('takes seats; the departure is guaranteed once minPax seats are taken, sold out at none left', () => {
    expect(adjustSeats(departure(10), product, -3, 'now')).toMatchObject({ seatsLeft: 7, status: 'scheduled', updatedAt: 'now' });
    expect(adjustSeats(departure(10), product, -4, 'now')).toMatchObject({ seatsLeft: 6, status: 'guaranteed' });
    expect(adjustSeats(departure(5, 'guaranteed'), product, -4, 'now')).toMatchObject({ seatsLeft: 1, status: 'guaranteed' });
    expect(adjustSeats(departure(3, 'guaranteed'), product, -3, 'now')).toMatchObject({ seatsLeft: 0, status: 'sold_out' });
  });

  it('gives seats back, never beyond capacity; the status follows', () => {
    expect(adjustSeats(departure(0, 'sold_out'), product, 2, 'now')).toMatchObject({ seatsLeft: 2, status: 'guaranteed' });
    expect(adjustSeats(departure(6, 'guaranteed'), product, 1, 'now')).toMatchObject({ seatsLeft: 7, status: 'scheduled' });
    expect(adjustSeats(departure(9), product, 5, 'now')).toMatchObject({ seatsLeft: 10, status: 'scheduled' });
  });

  it('a cancelled or departed departure keeps its status', () => {
    expect(adjustSeats(departure(5, 'cancelled'), product, -5, 'now')).toMatchObject({ seatsLeft: 0, status: 'cancelled' });
    expect(adjustSeats(departure(5, 'departed'), product, 3, 'now')).toMatchObject({ seatsLeft: 8, status: 'departed' });
  });

  it('more seats than are left is a 409, and the departure is untouched', () => {
    const d = departure(2);
    let error: unknown;
    try {
      adjustSeats(d, product, -3, 'now');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).statusCode).toBe(409);
    expect((error as ApiError).body).toEqual({ code: 'NOT_ENOUGH_SEATS', error: 'Not enough seats on departure dept_1' });
    expect(d).toMatchObject({ seatsLeft: 2, updatedAt: 'before' });
    expect(adjustSeats(d, product, -2, 'now').seatsLeft).toBe(0);
  });
});

describe('POST /v1/departures/:id/price: coupons and rooms', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await setup();
  });
  afterAll(() => t.sandbox.stop());

  const price = (departureId: string, body: unknown) => t.request('POST', `/v1/departures/${departureId}/price`, { body });
  const quote = async (departureId: string, body: unknown): Promise<Quote> => {
    const res = await price(departureId, body);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Quote;
  };
  const coupon = (code: string) => t.sandbox.store.list<Coupon>('coupons', t.liveWorkspaceId).find((c) => c.code === code)!;
  const bookable = (match: (d: Departure) => boolean) =>
    t.sandbox.store
      .list<Departure>('departures', t.liveWorkspaceId)
      .find((d) => d.status === 'scheduled' && d.seatsLeft > 2 && d.startDate > '2026-02-01' && match(d));

  it('a code matches in any case and around spaces; the quote names the coupon', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const q = await quote(departure.id, { adults: 1, couponCode: '  summer10 ' });
    expect(q.couponCode).toBe('SUMMER10');
    // one adult on the fixture departure picked (Northern Lights Hunt, 2026-03-15): 89.00, 10 % off: 8.90
    expect(q).toMatchObject({ subtotal: 8_900, discounts: 890 });
  });

  it('an unknown code is named (trimmed, as the body schema reads it)', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const res = await price(departure.id, { adults: 1, couponCode: ' nope ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'UNKNOWN_COUPON', error: 'Unknown coupon code "nope"' });
  });

  it('a fixed coupon applies to its own currency only', async () => {
    const welcome = coupon('WELCOME50');
    // every fixture departure is in the coupon's currency: one is switched for this test (arrangement only)
    const original = bookable((d) => d.currency === welcome.currency)!;
    const other = { ...original, currency: welcome.currency === 'USD' ? 'GBP' : 'USD' };
    const put = (row: Departure) =>
      t.sandbox.store.commit([{ type: 'put', collection: 'departures', workspaceId: t.liveWorkspaceId, row: row as unknown as Row }]);
    await put(other);
    try {
      const res = await price(other.id, { adults: 1, couponCode: 'WELCOME50' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'COUPON_CURRENCY_MISMATCH', error: `Coupon WELCOME50 applies to ${welcome.currency} prices, not ${other.currency}` });
      // a percent coupon has no currency
      expect((await quote(other.id, { adults: 1, couponCode: 'SUMMER10' })).couponCode).toBe('SUMMER10');
    } finally {
      await put(original);
    }
    const same = bookable((d) => d.currency === welcome.currency);
    expect(same).toBeDefined();
    const q = await quote(same!.id, { adults: 2, couponCode: 'WELCOME50' });
    expect(q).toMatchObject({ couponCode: 'WELCOME50', discounts: Math.min(welcome.value, q.subtotal) });
  });

  it('the room defaults to single for one sleeper, else double; rooms to what the sleepers need', async () => {
    const multi = pickDeparture(t, { rooms: true, minSeats: 4 });
    const rooms = multi.options.filter((o: PricingOption) => o.kind === 'room' && o.active);
    const codes = rooms.map((o) => o.code);
    const roomLine = (q: Quote) => q.lines.find((l) => l.code.startsWith('room:'));
    const one = await quote(multi.departure.id, { adults: 1 });
    const single = rooms.find((o) => o.code === 'single');
    if (single && single.amount > 0) expect(roomLine(one)).toMatchObject({ code: 'room:single', quantity: 1, unitAmount: single.amount });
    if (single) expect(roomLine(one)?.code ?? 'room:single').toBe('room:single');
    const double = rooms.find((o) => o.code === 'double');
    expect(codes).toContain('double');
    const three = await quote(multi.departure.id, { adults: 3 });
    if (double!.amount > 0) expect(roomLine(three)).toMatchObject({ code: 'room:double', quantity: 2, unitAmount: double!.amount });
    else expect(roomLine(three)).toBeUndefined();
    // rooms and roomsRequested agree when both are sent; rooms 0 counts as not sent
    const agreed = await quote(multi.departure.id, { adults: 2, rooms: 2, roomsRequested: 2, roomCategory: 'double' });
    if (double!.amount > 0) expect(roomLine(agreed)).toMatchObject({ quantity: 2 });
    const zero = await quote(multi.departure.id, { adults: 2, rooms: 0, roomCategory: 'double' });
    if (double!.amount > 0) expect(roomLine(zero)).toMatchObject({ quantity: 1 });
  });

  it('a day tour takes rooms: 0 as no rooms asked', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    expect((await price(departure.id, { adults: 1, rooms: 0 })).statusCode).toBe(200);
    for (const body of [
      { adults: 1, rooms: 1 },
      { adults: 1, occupancyPerRoom: 1 },
      { adults: 1, roomsRequested: 1 },
    ]) {
      const res = await price(departure.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('NO_ACCOMMODATION');
    }
  });

  it('a coupon expires after its validUntil, not at it', async () => {
    const summer = coupon('SUMMER10');
    const { product } = pickDeparture(t, { rooms: false });
    const departure =
      t.sandbox.store
        .list<Departure>('departures', t.liveWorkspaceId)
        .find((d) => d.productId === product.id && d.status === 'scheduled' && d.seatsLeft > 1 && d.startDate > '2026-06-01') ??
      t.sandbox.store.list<Departure>('departures', t.liveWorkspaceId).find((d) => d.status === 'scheduled' && d.seatsLeft > 1 && d.startDate > '2026-06-01')!;
    await t.sandbox.clock.set(Date.parse(summer.validUntil!));
    expect((await quote(departure.id, { adults: 1, couponCode: 'SUMMER10' })).couponCode).toBe('SUMMER10');
    await t.sandbox.clock.advance(1);
    const res = await price(departure.id, { adults: 1, couponCode: 'summer10' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'COUPON_EXPIRED', error: `Coupon SUMMER10 expired at ${summer.validUntil}` });
  });
});

describe('POST /v1/departures/:id/price: what cannot be priced, word for word', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await setup();
  });
  afterAll(() => t.sandbox.stop());

  const price = (departureId: string, body: unknown, key?: string) =>
    t.request('POST', `/v1/departures/${departureId}/price`, { body, ...(key ? { key } : {}) });
  /** Puts rows as a state import or a hand edit could leave them (test arrangement only); returns the undo. */
  async function edit(collection: string, rows: Row[]): Promise<() => Promise<void>> {
    const before = rows.map((row) => t.sandbox.store.get<Row>(collection, t.liveWorkspaceId, row.id as string));
    await t.sandbox.store.commit(rows.map((row) => ({ type: 'put' as const, collection, workspaceId: t.liveWorkspaceId, row })));
    return async () => {
      await t.sandbox.store.commit(before.map((row) => ({ type: 'put' as const, collection, workspaceId: t.liveWorkspaceId, row: row! })));
    };
  }

  it('a product that is not active: 409 PRODUCT_NOT_BOOKABLE naming it and its status', async () => {
    const { departure, product } = pickDeparture(t, {});
    const undo = await edit('products', [{ ...product, status: 'draft' } as unknown as Row]);
    try {
      const res = await price(departure.id, { adults: 1 });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ code: 'PRODUCT_NOT_BOOKABLE', error: `Product ${product.id} is not bookable (status draft)` });
    } finally {
      await undo();
    }
  });

  it('a departure marked departed, or whose start date is past on the sandbox clock: 409 DEPARTURE_DEPARTED', async () => {
    const { departure } = pickDeparture(t, {});
    const yesterday = new Date(t.sandbox.clock.now() - 86_400_000).toISOString().slice(0, 10);
    for (const changed of [
      { ...departure, status: 'departed' },
      { ...departure, startDate: yesterday },
    ]) {
      const undo = await edit('departures', [changed as unknown as Row]);
      try {
        const res = await price(departure.id, { adults: 1 });
        expect(res.statusCode, JSON.stringify(changed.status)).toBe(409);
        expect(res.json()).toEqual({ code: 'DEPARTURE_DEPARTED', error: `Departure ${departure.id} has already departed` });
      } finally {
        await undo();
      }
    }
    expect((await price(departure.id, { adults: 1 })).statusCode).toBe(200);
  });

  it('a departure whose product is gone (as an import can leave it) is not found, not a 500', async () => {
    const { departure, product } = pickDeparture(t, {});
    await t.sandbox.store.commit([{ type: 'delete', collection: 'products', workspaceId: t.liveWorkspaceId, id: product.id }]);
    try {
      const res = await price(departure.id, { adults: 1 });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Departure not found' });
    } finally {
      await t.sandbox.store.commit([{ type: 'put', collection: 'products', workspaceId: t.liveWorkspaceId, row: product as unknown as Row }]);
    }
  });

  it("an organization key limited to some products: another product's departure is not found, and the reason says why", async () => {
    const allowed = pickDeparture(t, {});
    const other = pickDeparture(t, {
      exclude: t.sandbox.store
        .list<Departure>('departures', t.liveWorkspaceId)
        .filter((d) => d.productId === allowed.product.id)
        .map((d) => d.id),
    });
    const key = await orgKey(t, { scopes: ['*'], productIds: [allowed.product.id] });
    expect((await price(allowed.departure.id, { adults: 1 }, key)).statusCode).toBe(200);
    const res = await price(other.departure.id, { adults: 1 }, key);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Departure not found' });
    expect(String(res.headers['x-sandbox-reason'])).toBe(
      `OUTSIDE_KEY_PRODUCTS departure ${other.departure.id} is of product ${other.product.id}, which is not among the 1 product organization key ${key.slice(0, 12)}... may use (its productIds)`,
    );
  });

  it('a product without an active adult price: 400 PRODUCT_NOT_PRICEABLE', async () => {
    const { departure, options } = pickDeparture(t, {});
    const adult = options.find((o) => o.kind === 'passenger' && o.code === 'adult')!;
    const undo = await edit('pricingOptions', [{ ...adult, active: false } as unknown as Row]);
    try {
      const res = await price(departure.id, { adults: 1 });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'PRODUCT_NOT_PRICEABLE', error: 'This product has no adult price and cannot be priced' });
    } finally {
      await undo();
    }
  });

  it('a room category not offered: 400 naming the ones that are', async () => {
    const { departure, options } = pickDeparture(t, { rooms: true });
    const codes = options.filter((o) => o.kind === 'room' && o.active).map((o) => o.code);
    const res = await price(departure.id, { adults: 1, roomCategory: 'palace' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'UNKNOWN_ROOM_CATEGORY', error: `Invalid roomCategory: "palace" is not offered; choose one of ${codes.join(', ')}` });
    expect(codes.length).toBeGreaterThan(1);
  });

  it('add-ons: addonQuantity alone is unnamed units, addons alone need no addonQuantity; an inactive one is named', async () => {
    const { departure, extensions } = pickDeparture(t, { extensions: 1 });
    const extension = extensions[0]!;
    expect((await price(departure.id, { adults: 1, addonQuantity: 2 })).statusCode).toBe(200);
    const named = await price(departure.id, { adults: 1, addons: [{ extensionId: extension.id, quantity: 1 }] });
    expect(named.statusCode, named.body).toBe(200);
    // both, and agreeing: fine
    const both = await price(departure.id, { adults: 1, addonQuantity: 1, addons: [{ extensionId: extension.id, quantity: 1 }] });
    expect(both.statusCode, both.body).toBe(200);
    const undo = await edit('extensions', [{ ...extension, active: false } as unknown as Row]);
    try {
      const res = await price(departure.id, { adults: 1, addons: [{ extensionId: extension.id, quantity: 1 }] });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'ADDON_UNAVAILABLE', error: `Invalid addons[0].extensionId: extension ${extension.id} is not available` });
    } finally {
      await undo();
    }
  });
});
