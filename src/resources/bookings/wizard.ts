import type { Principal } from '../../core/auth.ts';
import { badRequest, conflict } from '../../core/errors.ts';
import { newId, parseId } from '../../core/ids.ts';
import type { Pricer } from '../departures/pricing.ts';
import type { PeopleService } from '../people/service.ts';
import type { ProductService } from '../products/service.ts';
import type { BookingRecords } from './records.ts';
import type { CreateBookingBody } from './requests.ts';
import type { BookingService } from './service.ts';
import { WIZARD_TTL_MS, type WizardBody, type WizardSession } from './wizard-requests.ts';
import { WIZARD_SESSIONS } from './collections.ts';
import { PRODUCTS } from '../products/collections.ts';
import { unknownRecord } from '../../core/reasons.ts';

/**
 * Booking wizard sessions (`ws_<uuid>`, collection wizardSessions): a draft
 * that collects product, departure, party, rooms, add-ons, coupon and customer,
 * is re-priced on every change, holds no seats, and completes into a booking
 * through the same path as POST /v1/bookings (docs/bookings.md).
 */
export class WizardService {
  constructor(
    private readonly records: BookingRecords,
    private readonly pricer: Pricer,
    private readonly people: PeopleService,
    private readonly products: ProductService,
    private readonly bookings: BookingService,
  ) {}

  async handle(principal: Principal, body: WizardBody): Promise<{ statusCode: 200 | 201; session: WizardSession }> {
    const ws = principal.workspace.id;
    const prior = body.sessionId === undefined ? null : this.find(principal, body.sessionId);
    const next = this.apply(principal, prior, body);
    if (body.action !== 'complete') {
      await this.records.store.commit([WIZARD_SESSIONS.putOp(ws, next)]);
      return { statusCode: prior ? 200 : 201, session: next };
    }
    if (next.departureId === null) throw badRequest('WIZARD_DEPARTURE_REQUIRED', 'Invalid departureId: a wizard session completes once it has a departure');
    let completed = next;
    await this.bookings.create(principal, this.bookingBody(next, body), (booking) => {
      completed = { ...next, status: 'completed', bookingId: booking.id };
      return [WIZARD_SESSIONS.putOp(ws, completed)];
    });
    return { statusCode: 201, session: completed };
  }

  /** Unknown: 404; completed or lapsed: 409 (a session is used once). */
  private find(principal: Principal, rawId: string): WizardSession {
    const id = parseId(WIZARD_SESSIONS, 'sessionId', rawId);
    const session = WIZARD_SESSIONS.in(this.records.store).get(principal.workspace.id, id);
    if (!session) throw unknownRecord('Wizard session', id, WIZARD_SESSIONS, 'sessionId', principal.workspace.id);
    if (session.status === 'completed') throw conflict('WIZARD_SESSION_COMPLETED', `Wizard session ${id} is completed (booking ${session.bookingId})`);
    if (Date.parse(session.expiresAt) <= this.records.clock.now())
      throw conflict('WIZARD_SESSION_EXPIRED', `Wizard session ${id} expired at ${session.expiresAt}; start a new one`);
    return session;
  }

  /** The session after the body's changes, validated and re-priced; nothing is written here. */
  private apply(principal: Principal, prior: WizardSession | null, body: WizardBody): WizardSession {
    const at = this.records.clock.iso();
    const expiresAt = new Date(this.records.clock.now() + WIZARD_TTL_MS).toISOString();
    const s: WizardSession = prior
      ? { ...prior }
      : {
          id: newId(WIZARD_SESSIONS),
          status: 'open',
          productId: null,
          departureId: null,
          customerId: null,
          adults: 1,
          children: 0,
          infants: 0,
          rooms: null,
          roomCategory: null,
          occupancyPerRoom: null,
          roomsRequested: null,
          addons: [],
          couponCode: null,
          quote: null,
          bookingId: null,
          expiresAt,
          createdAt: at,
          updatedAt: at,
        };
    if (body.productId !== undefined) {
      const productId = body.productId === null ? null : this.products.get(principal, parseId(PRODUCTS, 'productId', body.productId)).id;
      if (productId !== s.productId)
        Object.assign(s, { productId, departureId: null, rooms: null, roomCategory: null, occupancyPerRoom: null, roomsRequested: null, addons: [] });
    }
    if (body.departureId !== undefined) this.chooseDeparture(principal, s, body.departureId);
    if (body.customerId !== undefined)
      s.customerId = body.customerId === null ? null : this.people.get(principal.workspace.id, body.customerId, 'customerId').id;
    for (const key of ['adults', 'children', 'infants', 'rooms', 'roomCategory', 'occupancyPerRoom', 'roomsRequested', 'addons', 'couponCode'] as const) {
      if (body[key] !== undefined) (s as Record<string, unknown>)[key] = body[key];
    }
    s.quote = this.quote(principal, s);
    return { ...s, updatedAt: at, expiresAt };
  }

  private chooseDeparture(principal: Principal, s: WizardSession, raw: string | null): void {
    if (raw === null) {
      s.departureId = null;
      return;
    }
    const { departure, product } = this.pricer.find(principal, raw, 'departureId');
    if (s.productId !== null && product.id !== s.productId) {
      throw badRequest('WIZARD_DEPARTURE_MISMATCH', `Invalid departureId: departure ${departure.id} is not a departure of product ${s.productId}`);
    }
    s.departureId = departure.id;
    s.productId = product.id;
  }

  /** Rooms, add-ons and coupons are priced against a departure, so they need one; the quote checks seats too. */
  private quote(principal: Principal, s: WizardSession) {
    if (s.departureId === null) {
      const selected =
        s.addons.length > 0 ||
        s.couponCode !== null ||
        s.roomCategory !== null ||
        (s.rooms ?? 0) > 0 ||
        s.occupancyPerRoom !== null ||
        s.roomsRequested !== null;
      if (selected) throw badRequest('WIZARD_DEPARTURE_REQUIRED', 'Invalid departureId: choose a departure before rooms, add-ons or a coupon');
      return null;
    }
    const target = this.pricer.find(principal, s.departureId, 'departureId');
    this.pricer.assertBookable(target);
    const priced = this.pricer.price(principal, target, { ...s, rooms: s.rooms ?? undefined });
    this.pricer.assertSeats(target.departure, priced.seats);
    s.addons = priced.addons.map((a) => ({ extensionId: a.extension.id, quantity: a.quantity }));
    s.couponCode = priced.coupon?.code ?? null;
    return priced.quote;
  }

  private bookingBody(s: WizardSession, body: WizardBody): CreateBookingBody {
    return {
      ...(body.booking ?? {}),
      departureId: s.departureId!,
      ...(s.customerId !== null ? { customerId: s.customerId } : {}),
      adults: s.adults,
      children: s.children,
      infants: s.infants,
      rooms: s.rooms ?? undefined,
      roomCategory: s.roomCategory,
      occupancyPerRoom: s.occupancyPerRoom,
      roomsRequested: s.roomsRequested,
      addons: s.addons,
      couponCode: s.couponCode,
    };
  }
}
