import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { emitDomainEvent, type EventBus } from '../../core/events.ts';
import { bareUuid, newId, parseId } from '../../core/ids.ts';
import { FieldIndex, textKey, type Store } from '../../storage/index.ts';
import type { PricedSelection } from '../departures/pricing.ts';
import type { BookingView } from './requests.ts';
import type { Booking, BookingItem, Passenger } from './schemas.ts';
import { BOOKINGS, BOOKING_ITEMS, PASSENGERS } from './collections.ts';
import { outsideKeyProducts, unknownRecord } from '../../core/reasons.ts';

/** Domain events of this area (API description, "Events": booking created/updated/cancelled, payment succeeded/refunded). */
export type BookingEventType = 'booking.created' | 'booking.updated' | 'booking.cancelled' | 'payment.succeeded' | 'payment.refunded';

/** Reads, views, writes and events shared by the booking, passenger, item and wizard services. */
export class BookingRecords {
  /** booking codes, upper-cased: unique per workspace */
  readonly codes: FieldIndex<Booking>;
  private readonly passengersByBooking: FieldIndex<Passenger>;
  private readonly itemsByBooking: FieldIndex<BookingItem>;

  constructor(
    readonly store: Store,
    readonly clock: Clock,
    private readonly bus: EventBus,
  ) {
    this.codes = FieldIndex.on(store, BOOKINGS, 'code', (b) => textKey(b.code)?.toUpperCase());
    this.passengersByBooking = FieldIndex.on(store, PASSENGERS, 'bookingId', (p) => p.bookingId);
    this.itemsByBooking = FieldIndex.on(store, BOOKING_ITEMS, 'bookingId', (i) => i.bookingId);
  }

  /** A booking of the workspace; organization keys only see bookings of their products. */
  find(principal: Principal, rawId: unknown): Booking {
    const id = parseId(BOOKINGS, 'id', rawId);
    const booking = BOOKINGS.in(this.store).get(principal.workspace.id, id);
    if (!booking) throw unknownRecord('Booking', id, BOOKINGS, 'id', principal.workspace.id);
    if (!this.visible(principal, booking)) {
      throw outsideKeyProducts('Booking', `booking ${id}`, booking.productId ?? '(none)', principal.keyPrefix, principal.productIds.length);
    }
    return booking;
  }

  visible(principal: Principal, booking: Booking): boolean {
    return principal.productIds.length === 0 || (booking.productId !== null && principal.productIds.includes(booking.productId));
  }

  passengers(ws: string, bookingId: string): Passenger[] {
    return this.passengersByBooking.rows(ws, bookingId);
  }

  items(ws: string, bookingId: string): BookingItem[] {
    return this.itemsByBooking.rows(ws, bookingId);
  }

  view(ws: string, booking: Booking): BookingView {
    return {
      ...booking,
      passengers: this.passengers(ws, booking.id).map((p) => ({
        id: p.id,
        person_id: bareUuid(p.personId),
        role: p.role,
        roomAllocation: p.roomAllocation,
        extras: p.extras,
      })),
      items: this.items(ws, booking.id),
    };
  }

  /** Events go out once, after the commit, carrying the booking as it now stands. */
  emit(ws: string, type: BookingEventType, booking: Booking): void {
    emitDomainEvent(this.bus, this.clock, ws, type, booking);
  }
}

/**
 * Booking items mirror the quote lines, as in the fixtures: passenger and room
 * lines are `departure` items, add-on lines `extension` items. Items that
 * survive a re-price keep their id and createdAt.
 */
export function mirrorItems(bookingId: string, priced: PricedSelection, existing: readonly BookingItem[], at: string) {
  const keyOf = (i: BookingItem) => (i.kind === 'extension' ? `ext:${i.refId}` : `dep:${i.description}`);
  const prior = new Map(existing.map((i) => [keyOf(i), i]));
  const items: BookingItem[] = priced.quote.lines.map((line) => {
    const extension = priced.addons.find((a) => `ext:${a.extension.code}` === line.code)?.extension;
    const key = extension ? `ext:${extension.id}` : `dep:${line.description}`;
    const before = prior.get(key);
    prior.delete(key);
    return {
      id: before?.id ?? newId(BOOKING_ITEMS),
      bookingId,
      kind: extension ? 'extension' : 'departure',
      refId: extension ? extension.id : priced.departure.id,
      description: line.description,
      quantity: line.quantity,
      unitAmount: line.unitAmount,
      amount: line.amount,
      createdAt: before?.createdAt ?? at,
    };
  });
  return { items, removed: [...prior.values()] };
}

/** The booking fields that follow from a priced selection (party, rooms, add-ons, coupon, totals, snapshot). */
export function pricedFields(priced: PricedSelection) {
  const { quote, room } = priced;
  return {
    currency: quote.currency,
    adults: priced.party.adults,
    children: priced.party.children,
    infants: priced.party.infants,
    rooms: room?.rooms ?? 0,
    addonQuantity: priced.addons.reduce((sum, a) => sum + a.quantity, 0) + priced.unnamedAddons,
    roomCategory: room?.option.code ?? null,
    occupancyPerRoom: room?.occupancyPerRoom ?? null,
    roomsRequested: room?.roomsRequested ?? null,
    couponCode: priced.coupon?.code ?? null,
    productId: priced.product.id,
    departureId: priced.departure.id,
    totals: { subtotal: quote.subtotal, taxes: quote.taxes, discounts: quote.discounts, total: quote.total },
  };
}
