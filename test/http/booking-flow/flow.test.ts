import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../../src/core/events.ts';
import {
  BookingListSchema,
  BookingResponseSchema,
  PassengersResponseSchema,
  PatchBookingResponseSchema,
  type BookingView,
} from '../../../src/resources/bookings/requests.ts';
import { QuoteSchema, type Quote } from '../../../src/resources/bookings/schemas.ts';
import { ExtensionListSchema, PricingOptionListSchema } from '../../../src/resources/catalog/requests.ts';
import type { Extension, PricingOption } from '../../../src/resources/catalog/schemas.ts';
import { CollectionMatchesSchema } from '../../../src/resources/collections-matches/routes.ts';
import { DepartureResponseSchema, QuoteResponseSchema } from '../../../src/resources/departures/requests.ts';
import { PersonSchema, type Person } from '../../../src/resources/people/schemas.ts';
import { ProductListSchema } from '../../../src/resources/products/schemas.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { createPerson, departureNow, pickDeparture, recordEvents, setup, type Pick } from './helpers.ts';

/** person_id is typed uuid in the description: answered bare. */
const bare = (id: string) => id.replace(/^ppl_/, '');

/**
 * The whole booking flow over HTTP (API description, "Products",
 * "Collections", "Departures", "Bookings", "People"): browse, price, book, add
 * passengers and items, confirm, cancel. Every body is parsed with its schema
 * (the harness validates responses too) and checked for the documented names.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

const ok = async (method: string, path: string, body?: unknown, status = 200) => {
  const res = await t.request(method, path, body === undefined ? {} : { body });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
};

describe('browse, price, book, fill in, confirm, cancel (steps share state, in order)', () => {
  let events: DomainEvent[];
  let pick: Pick;
  let addon: Extension;
  let options: PricingOption[];
  let quote: Quote;
  let created: BookingView;
  let grown: BookingView;
  let lead: Person;
  let kid: Person;
  let passengerIds: string[];
  const metadata = { crm: { id: 42, tags: ['vip', null] }, 'odd key': 'ünïcode' };
  const pricing = () => ({
    adults: 2,
    children: 1,
    roomCategory: 'double',
    rooms: 2,
    addons: [{ extensionId: addon.id, quantity: 1 }],
    couponCode: 'summer10',
  });

  it('browses products, prices, add-ons, a collection and the departure', async () => {
    events = recordEvents(t);
    pick = pickDeparture(t, { rooms: true, children: true, perPersonAddon: true, minSeats: 6 });
    const { product, departure } = pick;
    ProductListSchema.parse(await ok('GET', '/v1/products?type=tour&status=active'));
    options = PricingOptionListSchema.parse(await ok('GET', `/v1/products/${product.id}/pricing/options`)).data;
    expect(options.map((o) => o.code)).toEqual(expect.arrayContaining(['adult', 'child', 'double']));
    const extensions = ExtensionListSchema.parse(await ok('GET', `/v1/products/${product.id}/extensions`)).data;
    addon = extensions.find((e) => e.pricingUnit === 'per_person' && e.maxQuantity >= 4)!;
    const collection = t.sandbox.store.list<{ id: string }>('collections', t.liveWorkspaceId)[0]!;
    const matches = CollectionMatchesSchema.parse(await ok('GET', `/v1/collections/${collection.id}/matches`));
    expect(Object.keys(matches)).toEqual(['items']);
    const dep = DepartureResponseSchema.parse(await ok('GET', `/v1/departures/${departure.id}`)).data;
    expect(dep).toMatchObject({ id: departure.id, productId: product.id, seatsLeft: departure.seatsLeft, capacity: departure.capacity });
  });

  it('prices 2 adults and a child in two doubles with an add-on and a coupon (matched case-insensitively)', async () => {
    quote = QuoteResponseSchema.parse(await ok('POST', `/v1/departures/${pick.departure.id}/price`, pricing())).data;
    const price = (code: string) => options.find((o) => o.code === code)!.amount;
    expect(quote.lines.find((l) => l.code === 'adult')).toMatchObject({ quantity: 2, unitAmount: price('adult') });
    expect(quote.lines.find((l) => l.code === 'child')).toMatchObject({ quantity: 1, unitAmount: price('child') });
    expect(quote.lines.find((l) => l.code === `ext:${addon.code}`)).toMatchObject({ quantity: 1, unitAmount: addon.amount });
    // the fixture departure picked (6-Day Iceland Ring Road Adventure, 2026-04-28), worked by hand in cents:
    // 2 adults x 1,890.00 + 1 child x 1,420.00 + travel insurance 49.00 = 5,249.00; SUMMER10 takes 10 %: 524.90;
    // 11 % tax on the 4,724.10 left is 519.651, so 519.65; total 4,724.10 + 519.65 = 5,243.75
    expect(quote).toMatchObject({ currency: 'EUR', subtotal: 524_900, discounts: 52_490, taxes: 51_965, total: 524_375, couponCode: 'SUMMER10' });
    expect(departureNow(t, pick.departure.id).seatsLeft).toBe(pick.departure.seatsLeft); // a quote holds no seats
  });

  it('books: 201 {data: booking} with server totals, the snapshot, metadata as sent, items, seats taken', async () => {
    const customer = await createPerson(t);
    created = BookingResponseSchema.parse(
      await ok(
        'POST',
        '/v1/bookings',
        {
          ...pricing(),
          departureId: pick.departure.id,
          customerId: customer.id,
          metadata,
          attributes: { occasion: 'birthday' },
          notes: 'internal',
          publicNotes: 'See you soon',
        },
        201,
      ),
    ).data;
    expect(created).toMatchObject({
      status: 'pending',
      paymentStatus: 'unpaid',
      fulfillmentStatus: 'unfulfilled',
      adults: 2,
      children: 1,
      rooms: 2,
      couponCode: 'SUMMER10',
      addonQuantity: 1,
      departureId: pick.departure.id,
      productId: pick.product.id,
      customerId: customer.id,
    });
    expect(created.metadata).toEqual(metadata);
    expect(created.attributes).toMatchObject({ occasion: 'birthday' });
    expectTotals(created.totals, QuoteSchema.parse(created.attributes.pricingSnapshot), quote);
    expect(created.items.map((i) => i.kind).sort()).toEqual(['departure', 'departure', 'extension']);
    expect(departureNow(t, pick.departure.id).seatsLeft).toBe(pick.departure.seatsLeft - 3);
  });

  it('adds passengers: personId in, person_id out; people answer bare with middleName', async () => {
    lead = await createPerson(t, { firstName: 'Grace', lastName: 'Hopper' });
    kid = await createPerson(t, { firstName: 'Kid', lastName: 'Hopper', middleName: null });
    const pax = PassengersResponseSchema.parse(
      await ok('POST', `/v1/bookings/${created.id}/passengers`, {
        passengers: [
          { personId: lead.id.replace('ppl_', ''), role: 'lead', roomAllocation: 'room-1', extras: { dietary: 'vegan' } },
          { personId: kid.id, role: 'guest', roomAllocation: 'room-2' },
        ],
      }),
    );
    expect(pax.passengers).toEqual([
      { id: expect.stringMatching(/^psg_/), person_id: bare(lead.id), role: 'lead' },
      { id: expect.stringMatching(/^psg_/), person_id: bare(kid.id), role: 'guest' },
    ]);
    passengerIds = pax.passengers.map((p) => p.id);
    const person = PersonSchema.parse(await ok('GET', `/v1/people/${lead.id}`));
    expect(person).toMatchObject({ id: lead.id, firstName: 'Grace', middleName: 'Maria', lastName: 'Hopper' });
  });

  it('adds items (an adult seat, the add-on again) and recomputes totals, snapshot and seats', async () => {
    grown = BookingResponseSchema.parse(
      await ok(
        'POST',
        `/v1/bookings/${created.id}/items`,
        {
          items: [
            { kind: 'departure', passengerType: 'adult', quantity: 1 },
            { kind: 'extension', extensionId: addon.id, quantity: 1 },
          ],
        },
        201,
      ),
    ).data;
    expect(grown).toMatchObject({ adults: 3, children: 1, addonQuantity: 2, couponCode: 'SUMMER10' });
    const snap = QuoteSchema.parse(grown.attributes.pricingSnapshot);
    expect(snap.lines.find((l) => l.code === 'adult')!.quantity).toBe(3);
    expect(snap.total).toBeGreaterThan(quote.total);
    expect(grown.totals).toEqual({ subtotal: snap.subtotal, taxes: snap.taxes, discounts: snap.discounts, total: snap.total });
    expect(grown.items.reduce((s, i) => s + i.amount, 0)).toBe(snap.subtotal);
    expect(grown.items.find((i) => i.kind === 'extension')!.id).toBe(created.items.find((i) => i.kind === 'extension')!.id);
    expect(departureNow(t, pick.departure.id).seatsLeft).toBe(pick.departure.seatsLeft - 4);
  });

  it('reads the full booking with passengers, items and totals', async () => {
    const read = BookingResponseSchema.parse(await ok('GET', `/v1/bookings/${created.id}`)).data;
    expect(read.passengers.map((p) => p.person_id)).toEqual([bare(lead.id), bare(kid.id)]);
    expect(read.passengers[0]).toEqual({ id: passengerIds[0], person_id: bare(lead.id), role: 'lead', roomAllocation: 'room-1', extras: { dietary: 'vegan' } });
    expect(read.items).toEqual(grown.items);
    expect(read.totals).toEqual(grown.totals);
    expect(read.metadata).toEqual(metadata);
  });

  it('confirms, then cancels (bare {id, status, notes}); the seats come back', async () => {
    const confirmed = PatchBookingResponseSchema.parse(await ok('PATCH', `/v1/bookings/${created.id}`, { status: 'confirmed' }));
    expect(confirmed).toEqual({ id: created.id, status: 'confirmed', notes: 'internal' });
    const cancelled = await ok('PATCH', `/v1/bookings/${created.id}`, { status: 'cancelled', notes: 'customer called' });
    expect(cancelled).toEqual({ id: created.id, status: 'cancelled', notes: 'customer called' });
    expect(departureNow(t, pick.departure.id).seatsLeft).toBe(pick.departure.seatsLeft);
    const list = BookingListSchema.parse(await ok('GET', `/v1/bookings?q=${encodeURIComponent(created.code)}`));
    expect(list.data.map((b) => b.id)).toEqual([created.id]);
    expect(list.data[0]!.status).toBe('cancelled');
  });

  it('emitted each domain event once, after the change, with the resource as it then stood', () => {
    const types = events.filter((e) => e.type !== 'customer.created').map((e) => e.type);
    expect(types).toEqual(['booking.created', 'booking.updated', 'booking.updated', 'booking.updated', 'booking.cancelled']);
    expect(events.find((e) => e.type === 'booking.created')!.data).toMatchObject({ id: created.id, status: 'pending' });
    expect(events.at(-1)!.data).toMatchObject({ id: created.id, status: 'cancelled', notes: 'customer called', adults: 3 });
    expect(events.filter((e) => e.type === 'customer.created')).toHaveLength(3);
  });
});

function expectTotals(totals: { subtotal: number; taxes: number; discounts: number; total: number }, snapshot: Quote, quote: Quote) {
  QuoteSchema.parse(snapshot);
  const { quotedAt: _a, ...rest } = snapshot;
  const { quotedAt: _b, ...expected } = quote;
  expect(rest).toEqual(expected);
  expect(totals).toEqual({ subtotal: quote.subtotal, taxes: quote.taxes, discounts: quote.discounts, total: quote.total });
}
