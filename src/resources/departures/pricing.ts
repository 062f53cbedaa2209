import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { badRequest, conflict } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { buildQuote, quoteLines, type Party } from './quote-arithmetic.ts';
import type { Store } from '../../storage/index.ts';
import type { Quote } from '../bookings/schemas.ts';
import type { Coupon, Extension, PricingOption } from '../catalog/schemas.ts';
import type { Product } from '../products/schemas.ts';
import type { AddonSelection, PricingRequest } from './requests.ts';
import { seatsRequired, type Departure } from './schemas.ts';
import { ByProduct } from '../catalog/by-product.ts';
import { COUPONS, EXTENSIONS, PRICING_OPTIONS } from '../catalog/collections.ts';
import { DEPARTURES } from './collections.ts';
import { PRODUCTS } from '../products/collections.ts';
import { outsideKeyProducts, unknownRecord } from '../../core/reasons.ts';

/**
 * The one pricing engine behind quotes, bookings, booking items and wizard
 * sessions. Its arithmetic (quote-arithmetic.ts) is also what the fixture generator uses,
 * so generated bookings and API bookings are priced alike: integer minor
 * units, tax on the discounted subtotal, rounded half up. Every rule it applies
 * is listed in docs/bookings.md ("Pricing").
 */
export interface RoomSelection {
  option: PricingOption;
  rooms: number;
  occupancyPerRoom: number;
  roomsRequested: number;
}

export interface PricedSelection {
  product: Product;
  departure: Departure;
  party: Party;
  seats: number;
  room: RoomSelection | null;
  addons: { extension: Extension; quantity: number }[];
  /** add-on units sent as addonQuantity without addons: priced at zero, kept on the booking (docs/bookings.md) */
  unnamedAddons: number;
  coupon: Coupon | null;
  quote: Quote;
}

export interface Bookable {
  product: Product;
  departure: Departure;
}

export class Pricer {
  /** pricing options and extensions of one product, without filtering the workspace's whole catalog */
  private readonly options: ByProduct<PricingOption>;
  private readonly extensions: ByProduct<Extension>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.options = new ByProduct(PRICING_OPTIONS.in(store));
    this.extensions = new ByProduct(EXTENSIONS.in(store));
  }

  /** A departure the principal may see: organization keys only see their products' departures. */
  find(principal: Principal, rawId: unknown, field = 'id'): Bookable {
    const id = parseId(DEPARTURES, field, rawId);
    const ws = principal.workspace.id;
    const departure = DEPARTURES.in(this.store).get(ws, id);
    const product = departure && PRODUCTS.in(this.store).get(ws, departure.productId);
    if (!departure || !product) throw unknownRecord('Departure', id, DEPARTURES, field, ws);
    if (principal.productIds.length > 0 && !principal.productIds.includes(product.id)) {
      throw outsideKeyProducts('Departure', `departure ${id}`, product.id, principal.keyPrefix, principal.productIds.length);
    }
    return { departure, product };
  }

  /** 409 when the departure cannot take bookings: not on sale, sold out, already gone. */
  assertBookable({ departure, product }: Bookable): void {
    if (product.status !== 'active') throw conflict('PRODUCT_NOT_BOOKABLE', `Product ${product.id} is not bookable (status ${product.status})`);
    if (departure.status === 'cancelled') throw conflict('DEPARTURE_CANCELLED', `Departure ${departure.id} is cancelled`);
    if (departure.status === 'departed' || departure.startDate < this.clock.iso().slice(0, 10)) {
      throw conflict('DEPARTURE_DEPARTED', `Departure ${departure.id} has already departed`);
    }
    if (departure.status === 'sold_out' || departure.seatsLeft === 0) throw conflict('SOLD_OUT', `Departure ${departure.id} is sold out`);
  }

  /** 409 when `seats` more seats do not fit (the race for the last seat lands here). */
  assertSeats(departure: Departure, seats: number): void {
    if (seats > departure.seatsLeft) {
      throw conflict('NOT_ENOUGH_SEATS', `Not enough seats on departure ${departure.id}: ${seats} requested, ${departure.seatsLeft} left`);
    }
  }

  /** Prices a selection on a departure; every bad input is a 400 naming the field. */
  price(principal: Principal, target: Bookable, input: PricingRequest, opts: { keepCoupon?: boolean } = {}): PricedSelection {
    const { product, departure } = target;
    const ws = principal.workspace.id;
    const party: Party = { adults: input.adults, children: input.children ?? 0, infants: input.infants ?? 0 };
    const options = this.options.of(ws, product.id).filter((o) => o.active);
    checkParty(party, options);
    const room = chooseRoom(options, party, input);
    const addons = this.addons(ws, product, party, input);
    const coupon = this.coupon(ws, departure.currency, input.couponCode ?? null, opts.keepCoupon ?? false);
    const label = `${product.title}, ${departure.startDate}`;
    const quote = buildQuote(quoteLines(options, party, room, addons, label), {
      currency: departure.currency,
      coupon,
      taxRateBps: principal.workspace.taxRateBps,
      quotedAt: this.clock.iso(),
    });
    const unnamedAddons = input.addons === undefined ? (input.addonQuantity ?? 0) : 0;
    return { product, departure, party, seats: seatsRequired(party), room, addons, unnamedAddons, coupon, quote };
  }

  private addons(ws: string, product: Product, party: Party, input: PricingRequest) {
    const selections: AddonSelection[] = input.addons ?? [];
    const sum = selections.reduce((acc, a) => acc + a.quantity, 0);
    if (input.addonQuantity !== undefined && input.addons !== undefined && input.addonQuantity !== sum) {
      throw badRequest('ADDON_QUANTITY_MISMATCH', `addonQuantity (${input.addonQuantity}) must equal the sum of addons[].quantity (${sum})`);
    }
    const offered = this.extensions.of(ws, product.id);
    const seen = new Set<string>();
    return selections.map((selection, i) => {
      const field = `addons[${i}].extensionId`;
      const id = parseId(EXTENSIONS, field, selection.extensionId);
      const extension = offered.find((e) => e.id === id);
      if (!extension) throw badRequest('ADDON_NOT_OFFERED', `Invalid ${field}: extension ${id} is not offered on product ${product.id}`);
      if (!extension.active) throw badRequest('ADDON_UNAVAILABLE', `Invalid ${field}: extension ${id} is not available`);
      if (seen.has(id)) throw badRequest('ADDON_LISTED_TWICE', `Invalid ${field}: extension ${id} is listed twice`);
      seen.add(id);
      const travellers = party.adults + party.children + party.infants;
      const max = extension.pricingUnit === 'per_person' ? Math.min(extension.maxQuantity, travellers) : extension.maxQuantity;
      if (selection.quantity > max) {
        throw badRequest(
          'ADDON_QUANTITY_EXCEEDED',
          `Invalid addons[${i}].quantity: at most ${max} of "${extension.name}" (${extension.pricingUnit}) for this party`,
        );
      }
      return { extension, quantity: selection.quantity };
    });
  }

  /**
   * Coupons are matched case-insensitively; unknown, inactive, expired or
   * wrong-currency codes are a 400. A booking being re-priced keeps the coupon
   * it was booked with (`keep`), even if it has expired since.
   */
  private coupon(ws: string, currency: string, raw: string | null, keep: boolean): Coupon | null {
    if (raw === null) return null;
    const code = raw.trim().toUpperCase();
    const coupon = COUPONS.in(this.store)
      .list(ws)
      .find((c) => c.code === code);
    if (!coupon) throw badRequest('UNKNOWN_COUPON', `Unknown coupon code "${raw}"`);
    if (keep) return { ...coupon, active: true };
    if (!coupon.active) throw badRequest('COUPON_INACTIVE', `Coupon ${code} is not active`);
    if (coupon.validUntil !== null && Date.parse(coupon.validUntil) < this.clock.now()) {
      throw badRequest('COUPON_EXPIRED', `Coupon ${code} expired at ${coupon.validUntil}`);
    }
    if (coupon.kind === 'fixed' && coupon.currency !== currency) {
      throw badRequest('COUPON_CURRENCY_MISMATCH', `Coupon ${code} applies to ${coupon.currency} prices, not ${currency}`);
    }
    return coupon;
  }
}

function checkParty(party: Party, options: readonly PricingOption[]): void {
  if (party.adults < 1) throw badRequest('INVALID_PARTY', 'Invalid adults: every booking needs at least one adult');
  if (party.infants > party.adults)
    throw badRequest('INVALID_PARTY', "Invalid infants: each infant travels on an adult's lap, so infants cannot outnumber adults");
  for (const [code, field] of [
    ['child', 'children'],
    ['infant', 'infants'],
  ] as const) {
    if (party[field] > 0 && !options.some((o) => o.kind === 'passenger' && o.code === code)) {
      throw badRequest('INVALID_PARTY', `Invalid ${field}: this product takes no ${field} (no ${code} price)`);
    }
  }
  if (!options.some((o) => o.kind === 'passenger' && o.code === 'adult'))
    throw badRequest('PRODUCT_NOT_PRICEABLE', 'This product has no adult price and cannot be priced');
}

/**
 * Room rules: products without room options (day tours) take no room fields.
 * Otherwise the category defaults to single for one sleeper, else double (or
 * the first offered); occupancy defaults to the category's; rooms default to
 * what the sleepers need; `rooms` and `roomsRequested` must agree when both
 * are sent.
 */
function chooseRoom(options: readonly PricingOption[], party: Party, input: PricingRequest): RoomSelection | null {
  const rooms = options.filter((o) => o.kind === 'room');
  const sleepers = party.adults + party.children;
  if (rooms.length === 0) {
    const asked = input.roomCategory ?? input.occupancyPerRoom ?? input.roomsRequested ?? (input.rooms ? input.rooms : null);
    if (asked !== null)
      throw badRequest('NO_ACCOMMODATION', 'This product includes no accommodation: send no roomCategory, rooms, occupancyPerRoom or roomsRequested');
    return null;
  }
  const find = (code: string) => rooms.find((o) => o.code === code);
  const code = input.roomCategory ?? (sleepers === 1 && find('single') ? 'single' : (find('double') ?? rooms[0]!).code);
  const option = find(code);
  if (!option)
    throw badRequest('UNKNOWN_ROOM_CATEGORY', `Invalid roomCategory: "${code}" is not offered; choose one of ${rooms.map((o) => o.code).join(', ')}`);
  const max = option.occupancy ?? 1;
  const occupancyPerRoom = input.occupancyPerRoom ?? max;
  if (occupancyPerRoom > max) throw badRequest('INVALID_ROOMS', `Invalid occupancyPerRoom: a ${code} room sleeps at most ${max}`);
  const needed = Math.ceil(sleepers / occupancyPerRoom);
  const given = input.rooms !== undefined && input.rooms > 0 ? input.rooms : undefined;
  const requested = input.roomsRequested ?? undefined;
  if (given !== undefined && requested !== undefined && given !== requested) {
    throw badRequest('INVALID_ROOMS', `Invalid roomsRequested: ${requested} requested but rooms is ${given}; send one, or the same number`);
  }
  const count = given ?? requested ?? needed;
  if (count < needed)
    throw badRequest(
      'INVALID_ROOMS',
      `Invalid rooms: ${count} ${code} room(s) at ${occupancyPerRoom} per room sleep ${count * occupancyPerRoom}, not ${sleepers}`,
    );
  if (count > sleepers) throw badRequest('INVALID_ROOMS', `Invalid rooms: ${count} rooms for ${sleepers} sleeping traveller(s) leaves rooms empty`);
  return { option, rooms: count, occupancyPerRoom, roomsRequested: requested ?? count };
}

/** The departure after `delta` seats come back (positive) or are taken (negative); status follows the seats. */
export function adjustSeats(departure: Departure, product: Product, delta: number, at: string): Departure {
  const seatsLeft = Math.min(departure.capacity, departure.seatsLeft + delta);
  if (seatsLeft < 0) throw conflict('NOT_ENOUGH_SEATS', `Not enough seats on departure ${departure.id}`);
  let status = departure.status;
  if (status === 'scheduled' || status === 'guaranteed' || status === 'sold_out') {
    status = seatsLeft === 0 ? 'sold_out' : departure.capacity - seatsLeft >= product.minPax ? 'guaranteed' : 'scheduled';
  }
  return { ...departure, seatsLeft, status, updatedAt: at };
}
