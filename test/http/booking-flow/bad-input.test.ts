import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PricingOption } from '../../../src/resources/catalog/schemas.ts';
import { KEYS, type TestSandbox } from '../../helpers/sandbox.ts';
import { book, createPerson, departureNow, pickDeparture, setSeats, setup, type Pick } from './helpers.ts';

/** Every bad input of pricing, booking, passengers and items gets a clear 4xx with the documented error body. */
let t: TestSandbox;
let day: Pick;
let multi: Pick;
beforeAll(async () => {
  t = await setup();
  day = pickDeparture(t, { rooms: false, minSeats: 8 });
  multi = pickDeparture(t, { rooms: true, perPersonAddon: true, minSeats: 8 });
});
afterAll(() => t.sandbox.stop());

const price = (departureId: string, body: unknown) => t.request('POST', `/v1/departures/${departureId}/price`, { body });
const expectError = async (res: Promise<{ statusCode: number; json(): { error: string } }>, status: number, error: RegExp) => {
  const r = await res;
  expect(r.statusCode, JSON.stringify(r.json())).toBe(status);
  expect(r.json().error).toMatch(error);
};

describe('POST /v1/departures/:id/price rejects bad requests', () => {
  it.each([
    [{ adults: 1, couponCode: 'NOPE' }, /^Unknown coupon code "NOPE"$/],
    [{ adults: 1, couponCode: 'WINTER15' }, /^Coupon WINTER15 is not active$/],
    [{ adults: 0 }, /^Invalid adults: every booking needs at least one adult$/],
    [{ adults: 1, infants: 2 }, /^Invalid infants: .*cannot outnumber adults$/],
    [{ adults: 1, roomCategory: 'double' }, /^This product includes no accommodation/],
    [
      { adults: 1, addons: [{ extensionId: 'ext_00000000-0000-4000-8000-000000000000', quantity: 1 }] },
      /^Invalid addons\[0\]\.extensionId: extension ext_0.* is not offered on product prod_/,
    ],
    [
      { adults: 1, addons: [{ extensionId: 'dept_00000000-0000-4000-8000-000000000000', quantity: 1 }] },
      /^Invalid addons\[0\]\.extensionId: expected an id of the form ext_<uuid>$/,
    ],
  ])('day tour: %j -> 400', async (body, error) => expectError(price(day.departure.id, body), 400, error));

  it.each([
    [{ adults: 2, roomCategory: 'penthouse' }, /^Invalid roomCategory: "penthouse" is not offered; choose one of /],
    [{ adults: 3, roomCategory: 'double', rooms: 1 }, /^Invalid rooms: 1 double room\(s\) at 2 per room sleep 2, not 3$/],
    [{ adults: 2, roomCategory: 'double', occupancyPerRoom: 3 }, /^Invalid occupancyPerRoom: a double room sleeps at most 2$/],
    [{ adults: 2, rooms: 1, roomsRequested: 2 }, /^Invalid roomsRequested: 2 requested but rooms is 1/],
    [{ adults: 1, rooms: 3 }, /^Invalid rooms: 3 rooms for 1 sleeping traveller\(s\) leaves rooms empty$/],
  ])('multi-day: %j -> 400', async (body, error) => expectError(price(multi.departure.id, body), 400, error));

  it('an add-on beyond its maximum, or listed twice, is a 400', async () => {
    const ext = multi.extensions.find((e) => e.pricingUnit === 'per_person')!;
    await expectError(
      price(multi.departure.id, { adults: 2, addons: [{ extensionId: ext.id, quantity: 3 }] }),
      400,
      /^Invalid addons\[0\]\.quantity: at most 2 /,
    );
    await expectError(
      price(multi.departure.id, {
        adults: 2,
        addons: [
          { extensionId: ext.id, quantity: 1 },
          { extensionId: ext.id, quantity: 1 },
        ],
      }),
      400,
      /listed twice/,
    );
    await expectError(
      price(multi.departure.id, { adults: 2, addonQuantity: 3, addons: [{ extensionId: ext.id, quantity: 2 }] }),
      400,
      /^addonQuantity \(3\) must equal the sum of addons\[\]\.quantity \(2\)$/,
    );
  });

  it('a product without child or infant prices takes no children or infants', async () => {
    const ws = t.liveWorkspaceId;
    const options = t.sandbox.store.list<PricingOption>('pricingOptions', ws);
    const without = (code: string) =>
      t.sandbox.store
        .list<{ id: string; productId: string; status: string; seatsLeft: number }>('departures', ws)
        .find((d) => d.status === 'scheduled' && d.seatsLeft > 2 && !options.some((o) => o.productId === d.productId && o.code === code))!;
    await expectError(price(without('child').id, { adults: 1, children: 1 }), 400, /^Invalid children: this product takes no children \(no child price\)$/);
    await expectError(price(without('infant').id, { adults: 1, infants: 1 }), 400, /^Invalid infants: this product takes no infants \(no infant price\)$/);
  });

  it('sold out, too many passengers, cancelled: 409; unknown departure 404; wrong prefix 400; wrong types VALIDATION_400', async () => {
    const soldOut = pickDeparture(t, { rooms: false, exclude: [day.departure.id] });
    await setSeats(t, soldOut.departure, 0, 'sold_out');
    await expectError(price(soldOut.departure.id, { adults: 1 }), 409, new RegExp(`^Departure ${soldOut.departure.id} is sold out$`));
    const few = pickDeparture(t, { rooms: false, exclude: [day.departure.id, soldOut.departure.id] });
    await setSeats(t, few.departure, 2);
    await expectError(price(few.departure.id, { adults: 3 }), 409, new RegExp(`^Not enough seats on departure ${few.departure.id}: 3 requested, 2 left$`));
    await setSeats(t, departureNow(t, few.departure.id), 2, 'cancelled');
    await expectError(price(few.departure.id, { adults: 1 }), 409, /is cancelled$/);
    await expectError(price('dept_00000000-0000-4000-8000-000000000000', { adults: 1 }), 404, /^Departure not found$/);
    await expectError(price('prod_00000000-0000-4000-8000-000000000000', { adults: 1 }), 400, /^Invalid id: expected an id of the form dept_<uuid>$/);
    const wrong = await price(day.departure.id, { adults: 'two' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_400' });
  });
});

describe('POST /v1/bookings rejects bad input', () => {
  const base = () => ({ departureId: day.departure.id, adults: 1 });

  it('assumes 1 adult with a departure (0 without: docs/bookings.md); checks currency, customer and code', async () => {
    const assumed = await book(t, { departureId: base().departureId });
    expect(assumed.statusCode, assumed.body).toBe(201);
    expect(assumed.json().data.adults).toBe(1); // with ASSUMED_DEFAULT: test/http/fidelity/never-stricter.test.ts
    expect((await book(t, { adults: 1 })).json().data).toMatchObject({ departureId: null, adults: 1 }); // no departure: docs/bookings.md
    await expectError(book(t, { ...base(), currency: 'USD' }), 400, /^Invalid currency: departure dept_.* is sold in EUR, not USD$/);
    await expectError(
      book(t, { ...base(), customerId: 'ppl_00000000-0000-4000-8000-000000000000' }),
      404,
      /^Person ppl_00000000-0000-4000-8000-000000000000 not found$/,
    );
    await expectError(
      book(t, { ...base(), customerId: 'book_00000000-0000-4000-8000-000000000000' }),
      400,
      /^Invalid customerId: expected an id of the form ppl_<uuid>$/,
    );
    expect((await book(t, { ...base(), code: 'MY-REF-1' })).statusCode).toBe(201);
    await expectError(book(t, { ...base(), code: 'my-ref-1' }), 409, /^A booking with code my-ref-1 already exists$/);
    await expectError(book(t, { ...base(), status: 'archived' }), 400, /Validation failed/);
  });

  it('always stores a pricingSnapshot; a valid client snapshot replaces it; status defaults to pending', async () => {
    const plain = (await book(t, base())).json().data;
    expect(plain.status).toBe('pending');
    expect(plain.attributes).toEqual({ pricingSnapshot: expect.objectContaining({ total: plain.totals.total }) });
    const mine = {
      currency: 'EUR',
      lines: [{ code: 'adult', description: 'Agreed price', quantity: 1, unitAmount: 100, amount: 100 }],
      subtotal: 100,
      taxes: 0,
      discounts: 0,
      total: 100,
      couponCode: null,
      quotedAt: '2026-01-01T00:00:00.000Z',
    };
    const replaced = (await book(t, { ...base(), status: 'confirmed', attributes: { pricingSnapshot: mine, channelRef: 7 } })).json().data;
    expect(replaced.status).toBe('confirmed');
    expect(replaced.attributes).toEqual({ pricingSnapshot: mine, channelRef: 7 });
    expect(replaced.totals.total).toBe(plain.totals.total);
  });

  it('a key scoped to products:read can browse and price but cannot book or read bookings', async () => {
    const key = KEYS.liveRead;
    expect((await t.request('GET', `/v1/departures/${day.departure.id}`, { key })).statusCode).toBe(200);
    expect((await t.request('POST', `/v1/departures/${day.departure.id}/price`, { key, body: { adults: 1 } })).statusCode).toBe(200);
    expect((await t.request('GET', `/v1/products/${day.product.id}/pricing/options`, { key })).statusCode).toBe(200);
    const denied = await book(t, base(), key);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: 'Forbidden' });
    expect((await t.request('GET', '/v1/bookings', { key })).json()).toEqual({ error: 'Forbidden' });
    expect((await t.request('POST', '/v1/bookings/wizard/session', { key, body: {} })).statusCode).toBe(403);
    expect((await t.request('GET', `/v1/people/${(await createPerson(t)).id}`, { key })).statusCode).toBe(403);
  });
});

describe('passengers and items reject bad input', () => {
  const newBooking = async (adults = 1, departure = day.departure.id) => (await book(t, { departureId: departure, adults })).json().data as { id: string };
  const passengers = (id: string, body: unknown) => t.request('POST', `/v1/bookings/${id}/passengers`, { body });
  const items = (id: string, body: unknown) => t.request('POST', `/v1/bookings/${id}/items`, { body });

  it("unknown person 404 naming it; another workspace's person 404; wrong prefix 400; listed twice 400", async () => {
    const { id } = await newBooking(2);
    const ghost = 'ppl_00000000-0000-4000-8000-000000000001';
    await expectError(passengers(id, { passengers: [{ personId: ghost, role: 'lead' }] }), 404, new RegExp(`^Person ${ghost} not found$`));
    const foreign = t.sandbox.store.list<{ id: string }>('people', t.sandboxWorkspaceId)[0]!.id;
    await expectError(passengers(id, { passengers: [{ personId: foreign }] }), 404, new RegExp(`^Person ${foreign} not found$`));
    await expectError(
      passengers(id, { passengers: [{ personId: 'psg_00000000-0000-4000-8000-000000000001' }] }),
      400,
      /^Invalid passengers\[0\]\.personId: expected an id of the form ppl_<uuid>$/,
    );
    const p = await createPerson(t);
    await expectError(passengers(id, { passengers: [{ personId: p.id }, { personId: p.id }] }), 400, /listed twice/);
    const none = await passengers(id, { passengers: [] }); // no minimum in the description
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ passengers: [] });
    expect(none.headers['x-sandbox-warning']).toMatch(/^INFERRED_LIMIT: passengers is empty/);
  });

  it('the same person again updates, never duplicates; at most one lead; no more passengers than travellers', async () => {
    const { id } = await newBooking(2);
    const [a, b, c] = [await createPerson(t), await createPerson(t), await createPerson(t)];
    const first = (await passengers(id, { passengers: [{ personId: a.id, role: 'guest' }] })).json().passengers[0];
    const again = await passengers(id, { passengers: [{ personId: a.id, role: 'lead', roomAllocation: 'room-1' }] });
    expect(again.json().passengers).toEqual([{ id: first.id, person_id: a.id.replace(/^ppl_/, ''), role: 'lead' }]);
    const view = (await t.request('GET', `/v1/bookings/${id}`)).json().data;
    expect(view.passengers).toHaveLength(1);
    expect(view.customerId).toBe(a.id);
    await expectError(passengers(id, { passengers: [{ personId: b.id, role: 'lead' }] }), 409, /can have one lead passenger/);
    expect((await passengers(id, { passengers: [{ personId: b.id }] })).statusCode).toBe(200);
    await expectError(passengers(id, { passengers: [{ personId: c.id }] }), 409, /has 2 traveller\(s\); 3 passengers do not fit$/);
  });

  it('a cancelled booking takes no passengers or items (409); unknown booking 404', async () => {
    const { id } = await newBooking();
    await t.request('PATCH', `/v1/bookings/${id}`, { body: { status: 'cancelled' } });
    const p = await createPerson(t);
    await expectError(passengers(id, { passengers: [{ personId: p.id }] }), 409, new RegExp(`^Cannot change passengers: booking ${id} is cancelled$`));
    await expectError(items(id, { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] }), 409, /^Cannot add items: booking .* is cancelled$/);
    await expectError(
      items('book_00000000-0000-4000-8000-000000000000', { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] }),
      404,
      /^Booking not found$/,
    );
  });

  it('a completed booking takes no passengers or items either (409), and keeps its status', async () => {
    const { id } = await newBooking();
    expect((await t.request('PATCH', `/v1/bookings/${id}`, { body: { status: 'confirmed' } })).statusCode).toBe(200);
    const lead = await createPerson(t);
    expect((await passengers(id, { passengers: [{ personId: lead.id, role: 'lead' }] })).statusCode).toBe(200); // confirmed is still open
    expect((await t.request('PATCH', `/v1/bookings/${id}`, { body: { status: 'completed' } })).statusCode).toBe(200);
    const p = await createPerson(t);
    await expectError(passengers(id, { passengers: [{ personId: p.id }] }), 409, new RegExp(`^Cannot change passengers: booking ${id} is completed$`));
    await expectError(items(id, { items: [{ kind: 'departure', passengerType: 'adult', quantity: 1 }] }), 409, /^Cannot add items: booking .* is completed$/);
    expect((await t.request('GET', `/v1/bookings/${id}`)).json().data).toMatchObject({
      status: 'completed',
      passengers: [expect.objectContaining({ role: 'lead' })],
    });
  });

  it('items: more seats than left 409 (nothing changes), foreign extension 400, another departure 400, unknown kind 400', async () => {
    const few = pickDeparture(t, { rooms: false, exclude: [day.departure.id] });
    const { id } = await newBooking(1, few.departure.id);
    await setSeats(t, departureNow(t, few.departure.id), 1);
    const before = (await t.request('GET', `/v1/bookings/${id}`)).json().data;
    await expectError(
      items(id, { items: [{ kind: 'departure', passengerType: 'adult', quantity: 2 }] }),
      409,
      /^Not enough seats on departure .*: 2 requested, 1 left$/,
    );
    expect((await t.request('GET', `/v1/bookings/${id}`)).json().data).toEqual(before);
    expect(departureNow(t, few.departure.id).seatsLeft).toBe(1);
    await expectError(items(id, { items: [{ kind: 'extension', extensionId: multi.extensions[0]!.id, quantity: 1 }] }), 400, /is not offered on product/);
    await expectError(
      items(id, { items: [{ kind: 'departure', departureId: multi.departure.id, passengerType: 'adult', quantity: 1 }] }),
      400,
      /^Invalid items\[0\]\.departureId: booking .* books departure /,
    );
    await expectError(items(id, { items: [{ kind: 'voucher', quantity: 1 }] }), 400, /Validation failed/);
  });
});
