import type { Principal } from '../../core/auth.ts';
import { badRequest, conflict } from '../../core/errors.ts';
import { bareUuid, newId, parseId } from '../../core/ids.ts';
import type { Op } from '../../storage/index.ts';
import { adjustSeats, type Pricer } from '../departures/pricing.ts';
import type { AddonSelection } from '../departures/requests.ts';
import type { PeopleService } from '../people/service.ts';
import type { BookingView, ItemInput, PassengerInput } from './requests.ts';
import { mirrorItems, pricedFields, type BookingRecords } from './records.ts';
import type { Booking, Passenger } from './schemas.ts';
import { assertOpen } from './state.ts';
import { BOOKINGS, BOOKING_ITEMS, PASSENGERS } from './collections.ts';
import { EXTENSIONS } from '../catalog/collections.ts';
import { DEPARTURES } from '../departures/collections.ts';

/** Passengers and items of a booking (API description, "Bookings"). */
export class BookingPartsService {
  constructor(
    private readonly records: BookingRecords,
    private readonly pricer: Pricer,
    private readonly people: PeopleService,
  ) {}

  /**
   * Create or update passengers by person: the same person sent again updates
   * their passenger row. A booking has at most one lead and no more passengers
   * than travellers; when it has no customer yet, the lead becomes it.
   */
  async upsertPassengers(principal: Principal, rawId: string, inputs: PassengerInput[]) {
    const ws = principal.workspace.id;
    const booking = this.records.find(principal, rawId);
    assertOpen(booking, 'change passengers');
    if (inputs.length === 0) return { passengers: [] }; // nothing to write, and no event (warned: warnings.ts)
    const at = this.records.clock.iso();
    const current = new Map(this.records.passengers(ws, booking.id).map((p) => [p.personId, p]));
    const seen = new Set<string>();
    const written: Passenger[] = inputs.map((input, i) => {
      const person = this.people.get(ws, input.personId, `passengers[${i}].personId`);
      if (seen.has(person.id)) throw badRequest('PASSENGER_LISTED_TWICE', `Invalid passengers[${i}].personId: person ${person.id} is listed twice`);
      seen.add(person.id);
      const before = current.get(person.id);
      const passenger: Passenger = {
        id: before?.id ?? newId(PASSENGERS),
        bookingId: booking.id,
        personId: person.id,
        role: input.role ?? before?.role ?? 'guest',
        roomAllocation: input.roomAllocation !== undefined ? input.roomAllocation : (before?.roomAllocation ?? null),
        extras: input.extras ?? before?.extras ?? {},
        createdAt: before?.createdAt ?? at,
        updatedAt: at,
      };
      current.set(person.id, passenger);
      return passenger;
    });
    const all = [...current.values()];
    const travellers = booking.adults + booking.children + booking.infants;
    if (all.length > travellers)
      throw conflict('TOO_MANY_PASSENGERS', `Booking ${booking.id} has ${travellers} traveller(s); ${all.length} passengers do not fit`);
    const leads = all.filter((p) => p.role === 'lead');
    if (leads.length > 1)
      throw conflict('ONE_LEAD_PASSENGER', `Booking ${booking.id} can have one lead passenger; leads would be ${leads.map((p) => p.personId).join(', ')}`);
    const updated: Booking = { ...booking, customerId: booking.customerId ?? leads[0]?.personId ?? null, updatedAt: at };
    const ops: Op[] = [BOOKINGS.putOp(ws, updated), ...written.map((p) => PASSENGERS.putOp(ws, p))];
    await this.records.store.commit(ops);
    this.records.emit(ws, 'booking.updated', updated);
    return { passengers: written.map((p) => ({ id: p.id, person_id: bareUuid(p.personId), role: p.role })) };
  }

  /**
   * Adds departure seats (more travellers of a passenger type) and extensions
   * (add-ons), re-prices the whole booking with its own coupon, and rewrites
   * items, totals and attributes.pricingSnapshot. Extra seats are checked and
   * taken in the same synchronous step as the commit.
   */
  async addItems(principal: Principal, rawId: string, inputs: ItemInput[]): Promise<BookingView> {
    const ws = principal.workspace.id;
    const booking = this.records.find(principal, rawId);
    assertOpen(booking, 'add items');
    const departureId = booking.departureId ?? firstDepartureOf(booking.id, inputs);
    const target = this.pricer.find(principal, departureId, 'departureId');
    const party = { adults: booking.adults, children: booking.children, infants: booking.infants };
    // a booking created without a departure holds no seats yet: its whole party is seated now
    const held = booking.departureId === null ? 0 : booking.adults + booking.children;
    const existing = this.records.items(ws, booking.id);
    const addons = new Map<string, number>(existing.filter((i) => i.kind === 'extension').map((i) => [i.refId, i.quantity]));
    inputs.forEach((input, i) => {
      if (input.kind === 'extension') {
        const id = parseId(EXTENSIONS, `items[${i}].extensionId`, input.extensionId);
        addons.set(id, (addons.get(id) ?? 0) + input.quantity);
        return;
      }
      if (input.departureId !== undefined && parseId(DEPARTURES, `items[${i}].departureId`, input.departureId) !== target.departure.id) {
        const books =
          booking.departureId === null
            ? `the first departure item names ${target.departure.id}`
            : `booking ${booking.id} books departure ${target.departure.id}`;
        throw badRequest('ITEM_DEPARTURE_MISMATCH', `Invalid items[${i}].departureId: ${books}`);
      }
      const field = input.passengerType === 'adult' ? 'adults' : input.passengerType === 'child' ? 'children' : 'infants';
      party[field] += input.quantity;
    });
    const extraSeats = party.adults + party.children - held;
    if (extraSeats > 0 || booking.departureId === null) this.pricer.assertBookable(target);
    const selections: AddonSelection[] = [...addons].map(([extensionId, quantity]) => ({ extensionId, quantity }));
    const occupancy = booking.occupancyPerRoom;
    const rooms = occupancy === null ? undefined : Math.max(booking.rooms, Math.ceil((party.adults + party.children) / occupancy));
    const priced = this.pricer.price(
      principal,
      target,
      {
        ...party,
        rooms,
        roomCategory: booking.roomCategory,
        occupancyPerRoom: occupancy,
        addons: selections,
        couponCode: booking.couponCode,
      },
      { keepCoupon: booking.departureId !== null },
    ); // a coupon kept from a create without departure is checked now
    if (booking.departureId === null && booking.currency !== priced.quote.currency) {
      throw badRequest(
        'CURRENCY_MISMATCH',
        `Invalid items: departure ${target.departure.id} is sold in ${priced.quote.currency}, booking ${booking.id} is in ${booking.currency}`,
      );
    }
    const at = this.records.clock.iso();
    const { items, removed } = mirrorItems(booking.id, priced, existing, at);
    // unnamed add-on units (addonQuantity sent without addons) survive a re-price
    const named = existing.filter((i) => i.kind === 'extension').reduce((sum, i) => sum + i.quantity, 0);
    const fields = pricedFields({ ...priced, unnamedAddons: Math.max(0, booking.addonQuantity - named) });
    const updated: Booking = {
      ...booking,
      ...fields,
      attributes: { ...booking.attributes, pricingSnapshot: priced.quote },
      updatedAt: at,
    };
    const ops: Op[] = [BOOKINGS.putOp(ws, updated), ...items.map((item) => BOOKING_ITEMS.putOp(ws, item))];
    for (const item of removed) ops.push(BOOKING_ITEMS.deleteOp(ws, item.id));
    if (extraSeats > 0) {
      this.pricer.assertSeats(target.departure, extraSeats);
      ops.push(DEPARTURES.putOp(ws, adjustSeats(target.departure, target.product, -extraSeats, at)));
    }
    await this.records.store.commit(ops);
    this.records.emit(ws, 'booking.updated', updated);
    return this.records.view(ws, updated);
  }
}

/**
 * The departure a booking created without one gets: the first departure item's departureId
 * (every other departure item must name the same one, checked in addItems).
 */
function firstDepartureOf(bookingId: string, inputs: readonly ItemInput[]): string {
  const named = inputs.find((input) => input.kind === 'departure' && input.departureId !== undefined);
  if (named?.kind === 'departure' && named.departureId !== undefined) return named.departureId;
  const i = inputs.findIndex((input) => input.kind === 'departure');
  if (i >= 0)
    throw badRequest(
      'DEPARTURE_REQUIRED',
      `Missing items[${i}].departureId: booking ${bookingId} has no departure yet; its first departure item names one (dept_<uuid>)`,
    );
  throw badRequest(
    'DEPARTURE_REQUIRED',
    `Invalid items: booking ${bookingId} has no departure yet, so extensions cannot be priced; add a departure item with departureId first, or in the same request`,
  );
}
