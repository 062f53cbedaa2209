import { randomInt } from 'node:crypto';
import type { Principal } from '../../core/auth.ts';
import { badRequest, conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { bookingPage, parseSort } from '../../core/pagination.ts';
import type { Op } from '../../storage/index.ts';
import { adjustSeats, type Pricer } from '../departures/pricing.ts';
import { DEFAULT_ADULTS } from '../departures/requests.ts';
import { seatsRequired } from '../departures/schemas.ts';
import type { PeopleService } from '../people/service.ts';
import type { Product } from '../products/schemas.ts';
import { BOOKING_SORT_FIELDS, type BookingView, type CreateBookingBody, type ListBookingsQuery } from './requests.ts';
import { mirrorItems, pricedFields, type BookingRecords } from './records.ts';
import type { Booking, Quote } from './schemas.ts';
import { assertTransition } from './state.ts';
import { bookingListIndex, type BookingEntry } from './list-index.ts';
import { BookingSearchText } from './search-text.ts';
import { BOOKINGS, BOOKING_ITEMS } from './collections.ts';
import { DEPARTURES } from '../departures/collections.ts';
import { PRODUCTS } from '../products/collections.ts';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const HOLDS_NO_SEATS: readonly Booking['status'][] = ['cancelled'];

/** Bookings (API description, "Bookings"): create, list, read, status moves. */
export class BookingService {
  constructor(
    private readonly records: BookingRecords,
    private readonly pricer: Pricer,
    private readonly people: PeopleService,
  ) {
    // followed from the first write on (a seed keeps them as it goes: the first list or search after it scans nothing)
    bookingListIndex(records.store);
    BookingSearchText.of(records.store);
  }

  /**
   * Everything from the first read of the departure to store.commit() runs
   * synchronously, so checking and taking seats happen in one step: two
   * requests racing for the last seat cannot both pass the check.
   * `alsoCommit` adds rows to the same commit (a wizard session completing).
   */
  async create(principal: Principal, body: CreateBookingBody, alsoCommit: (booking: Booking) => Op[] = () => []): Promise<BookingView> {
    if (body.departureId === undefined) return this.createEmpty(principal, body, alsoCommit);
    const ws = principal.workspace.id;
    const { store, clock } = this.records;
    const target = this.pricer.find(principal, body.departureId, 'departureId');
    const status = body.status ?? 'pending';
    const holdsSeats = !HOLDS_NO_SEATS.includes(status);
    if (holdsSeats) this.pricer.assertBookable(target);
    // no adults count: one assumed, with the warning ASSUMED_DEFAULT (warnings.ts), refused under --strict before this runs
    const priced = this.pricer.price(principal, target, { ...body, adults: body.adults ?? DEFAULT_ADULTS });
    if (body.currency !== undefined && body.currency !== priced.quote.currency) {
      throw badRequest('CURRENCY_MISMATCH', `Invalid currency: departure ${target.departure.id} is sold in ${priced.quote.currency}, not ${body.currency}`);
    }
    const customer = body.customerId === undefined ? null : this.people.get(ws, body.customerId, 'customerId');
    const at = clock.iso();
    const partner = principal.kind === 'organization';
    const booking: Booking = {
      id: newId(BOOKINGS),
      code: this.code(principal, body.code),
      status,
      paymentStatus: body.paymentStatus ?? 'unpaid',
      fulfillmentStatus: body.fulfillmentStatus ?? 'unfulfilled',
      salesChannel: body.salesChannel ?? (partner ? 'partner' : 'api'),
      sourceSystem: body.sourceSystem ?? (partner ? 'partner_api' : 'api'),
      ...pricedFields(priced),
      publicNotes: body.publicNotes ?? null,
      notes: body.notes ?? null,
      attributes: { ...(body.attributes ?? {}), pricingSnapshot: pricingSnapshot(body.attributes, priced.quote) },
      metadata: body.metadata ?? {},
      language: body.language ?? defaultLanguage(target.product),
      customerId: customer?.id ?? null,
      createdAt: at,
      updatedAt: at,
    };
    const ops: Op[] = [BOOKINGS.putOp(ws, booking)];
    for (const item of mirrorItems(booking.id, priced, [], at).items) ops.push(BOOKING_ITEMS.putOp(ws, item));
    if (holdsSeats) {
      this.pricer.assertSeats(target.departure, priced.seats);
      ops.push(DEPARTURES.putOp(ws, adjustSeats(target.departure, target.product, -priced.seats, at)));
    }
    ops.push(...alsoCommit(booking));
    await store.commit(ops);
    this.records.emit(ws, 'booking.created', booking);
    if (booking.paymentStatus === 'paid') this.records.emit(ws, 'payment.succeeded', booking);
    return this.records.view(ws, booking);
  }

  /**
   * "Items and passengers are not part of the create body; they are added through their own
   * endpoints afterwards" (API description, "Bookings"): without a departure the booking
   * holds no seats and totals zero; the party, rooms and coupon sent are kept, and its first
   * departure item (parts.ts, addItems) names the departure and prices all of it.
   */
  private async createEmpty(principal: Principal, body: CreateBookingBody, alsoCommit: (booking: Booking) => Op[]): Promise<BookingView> {
    const ws = principal.workspace.id;
    if (principal.productIds.length > 0) {
      // it would belong to no product, so this key could not read it back
      throw badRequest(
        'DEPARTURE_REQUIRED',
        `Missing departureId: key ${principal.keyPrefix} is limited to ${principal.productIds.length} product(s), and a booking without a departure belongs to none`,
      );
    }
    if (body.addons !== undefined && body.addons.length > 0) {
      throw badRequest(
        'DEPARTURE_REQUIRED',
        'Invalid addons: add-ons are offered per product; send departureId, or add them as extension items after a departure item',
      );
    }
    const customer = body.customerId === undefined ? null : this.people.get(ws, body.customerId, 'customerId');
    const at = this.records.clock.iso();
    const partner = principal.kind === 'organization';
    const currency = body.currency ?? principal.workspace.currency;
    const empty: Quote = { currency, lines: [], subtotal: 0, taxes: 0, discounts: 0, total: 0, couponCode: null, quotedAt: at };
    const booking: Booking = {
      id: newId(BOOKINGS),
      code: this.code(principal, body.code),
      status: body.status ?? 'pending',
      paymentStatus: body.paymentStatus ?? 'unpaid',
      fulfillmentStatus: body.fulfillmentStatus ?? 'unfulfilled',
      salesChannel: body.salesChannel ?? (partner ? 'partner' : 'api'),
      sourceSystem: body.sourceSystem ?? (partner ? 'partner_api' : 'api'),
      currency,
      adults: body.adults ?? 0,
      children: body.children ?? 0,
      infants: body.infants ?? 0,
      rooms: body.rooms ?? 0,
      publicNotes: body.publicNotes ?? null,
      notes: body.notes ?? null,
      attributes: { ...(body.attributes ?? {}), pricingSnapshot: pricingSnapshot(body.attributes, empty) },
      metadata: body.metadata ?? {},
      language: body.language ?? 'en',
      addonQuantity: body.addonQuantity ?? 0,
      roomCategory: body.roomCategory ?? null,
      occupancyPerRoom: body.occupancyPerRoom ?? null,
      roomsRequested: body.roomsRequested ?? null,
      couponCode: body.couponCode ?? null,
      productId: null,
      departureId: null,
      customerId: customer?.id ?? null,
      totals: { subtotal: 0, taxes: 0, discounts: 0, total: 0 },
      createdAt: at,
      updatedAt: at,
    };
    await this.records.store.commit([BOOKINGS.putOp(ws, booking), ...alsoCommit(booking)]);
    this.records.emit(ws, 'booking.created', booking);
    if (booking.paymentStatus === 'paid') this.records.emit(ws, 'payment.succeeded', booking);
    return this.records.view(ws, booking);
  }

  get(principal: Principal, rawId: string): BookingView {
    return this.records.view(principal.workspace.id, this.records.find(principal, rawId));
  }

  /**
   * `dir` wins over a leading `-` in `sort`; default newest first. `locale` is accepted (bookings carry no translated text).
   * The page is found in the list index (list-index.ts) and only its rows are read (a page costs the page): the order,
   * ties by id, is the one sorting every visible booking gave.
   */
  list(principal: Principal, query: ListBookingsQuery) {
    const ws = principal.workspace.id;
    const spec = parseSort(query.sort, BOOKING_SORT_FIELDS, { field: 'createdAt', descending: true });
    if (query.dir !== undefined) spec.descending = query.dir === 'desc';
    const allowed = principal.productIds.length > 0 ? new Set(principal.productIds) : null;
    const filter = allowed ? (e: BookingEntry) => e.productId !== null && allowed.has(e.productId) : undefined;
    const page = { order: spec.field, descending: spec.descending, bucket: query.status, filter, offset: query.offset, limit: query.limit };
    const bookings = BOOKINGS.in(this.records.store);
    const index = bookingListIndex(this.records.store);
    const q = query.q?.toLowerCase();
    // q: the matching ids from the search index (search-text.ts), then sorted among themselves
    const find = () => (q ? index.pageAmong(ws, BookingSearchText.of(this.records.store).matching(ws, q), page) : index.page(ws, page));
    let found = find();
    let rows = found.ids.map((id) => bookings.get(ws, id));
    if (rows.includes(undefined)) {
      // never expected (the index follows every commit); rebuilt from the store rather than answer a hole
      index.forget(ws);
      found = find();
      rows = found.ids.map((id) => bookings.get(ws, id));
    }
    return bookingPage(
      rows.filter((b) => b !== undefined),
      found.total,
      query,
    );
  }

  /** PATCH {status, notes}: status moves follow the state machine; cancelling gives the seats back. */
  async patch(principal: Principal, rawId: string, body: { status?: Booking['status'] | undefined; notes?: string | null | undefined }) {
    const ws = principal.workspace.id;
    const booking = this.records.find(principal, rawId);
    const status = body.status ?? booking.status;
    const moving = status !== booking.status;
    if (moving) assertTransition(booking.status, status);
    const notes = body.notes !== undefined ? body.notes : booking.notes;
    if (!moving && notes === booking.notes) return { id: booking.id, status, notes };
    const at = this.records.clock.iso();
    const updated: Booking = { ...booking, status, notes, updatedAt: at };
    const ops: Op[] = [];
    const cancelling = moving && status === 'cancelled';
    const refunding = cancelling && (booking.paymentStatus === 'paid' || booking.paymentStatus === 'partially_paid');
    if (refunding) updated.paymentStatus = 'refunded';
    if (cancelling) ops.push(...this.releaseSeats(ws, booking, at));
    ops.unshift(BOOKINGS.putOp(ws, updated));
    await this.records.store.commit(ops);
    this.records.emit(ws, cancelling ? 'booking.cancelled' : 'booking.updated', updated);
    if (refunding) this.records.emit(ws, 'payment.refunded', updated);
    return { id: updated.id, status: updated.status, notes: updated.notes };
  }

  private releaseSeats(ws: string, booking: Booking, at: string): Op[] {
    const { store } = this.records;
    const departure = booking.departureId ? DEPARTURES.in(store).get(ws, booking.departureId) : undefined;
    const product = departure && PRODUCTS.in(store).get(ws, departure.productId);
    if (!departure || !product) return [];
    return [DEPARTURES.putOp(ws, adjustSeats(departure, product, seatsRequired(booking), at))];
  }

  /** Codes are unique per workspace; a custom code that is taken is a 409, a generated one is retried. */
  private code(principal: Principal, custom: string | undefined): string {
    const taken = { has: (code: string) => this.records.codes.has(principal.workspace.id, code) };
    if (custom !== undefined) {
      if (taken.has(custom.toUpperCase())) throw conflict('DUPLICATE_BOOKING_CODE', `A booking with code ${custom} already exists`);
      return custom;
    }
    const prefix =
      principal.workspace.name
        .replace(/[^A-Za-z]/g, '')
        .slice(0, 3)
        .toUpperCase() || 'BKG';
    for (;;) {
      const code = `${prefix}-${Array.from({ length: 6 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('')}`;
      if (!taken.has(code)) return code;
    }
  }
}

const defaultLanguage = (product: Product): string => (product.languages.includes('en') ? 'en' : (product.languages[0] ?? 'en'));

/**
 * "sending a pricingSnapshot key replaces it" ("Booking"): a client's
 * attributes.pricingSnapshot is stored exactly as sent (a warning says when
 * it is not quote-shaped); totals are computed by the server either way.
 */
function pricingSnapshot(attributes: Record<string, unknown> | undefined, quote: Quote): unknown {
  return attributes && Object.hasOwn(attributes, 'pricingSnapshot') ? attributes.pricingSnapshot : quote;
}
