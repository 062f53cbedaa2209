import { DAY_MS, isoDay, type RowSink } from '../fixtures/context.ts';
import type { CatalogEntry } from '../fixtures/generate-catalog.ts';
import type { DepartureSlot } from '../fixtures/generate-departures.ts';
import type { PeoplePools } from '../fixtures/generate-people.ts';
import type { Booking } from '../resources/bookings/schemas.ts';
import type { Extension, PricingOption } from '../resources/catalog/schemas.ts';
import type { Departure } from '../resources/departures/schemas.ts';
import type { Person } from '../resources/people/schemas.ts';
import type { Product } from '../resources/products/schemas.ts';
import { BOOKINGS } from '../resources/bookings/collections.ts';
import { EXTENSIONS, PRICING_OPTIONS } from '../resources/catalog/collections.ts';
import { DEPARTURES } from '../resources/departures/collections.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import { PRODUCTS } from '../resources/products/collections.ts';
import type { Collection, Store, StoredRow } from '../storage/index.ts';

/**
 * What seeding builds on in one workspace, derived from its rows: the taken
 * slugs, e-mails and booking codes, the countries it sells, its active products
 * with their options, its bookable departures, its people by age group. Built
 * once and then carried from chunk to chunk (and from one `POST /seed` to the
 * next: `sandbox seed` sends several), updated from the rows each chunk commits,
 * instead of re-listing and re-deriving the whole workspace per chunk, which
 * would make a large seed quadratic. It is exactly what a fresh
 * build would give (the test compares them), so carrying it changes no seeded row.
 * A write by anyone else to a collection it derives from (seen as a new
 * partition version), or another anchor day, makes it stale: it is then rebuilt.
 */
const DERIVED_FROM: readonly Collection<StoredRow>[] = [PRODUCTS, PRICING_OPTIONS, EXTENSIONS, DEPARTURES, PEOPLE, BOOKINGS];
const YEAR_MS = 365.25 * DAY_MS;

/** The prefix of the first booking code that has one (`AUR-7KQ2MX`: `AUR`). */
function codePrefix(bookings: readonly Booking[]): string | null {
  for (const booking of bookings) {
    const prefix = /^([A-Z]{2,5})-/.exec(booking.code)?.[1];
    if (prefix) return prefix;
  }
  return null;
}

/** A bookable departure as the generator takes it, on a private copy, with what is committed of it. */
export interface OpenSlot extends DepartureSlot {
  committed: { seatsLeft: number; status: Departure['status']; touchedMs: number };
}

/** Removes `gone` from `slots` in place, keeping the order (a filtered copy of every slot per chunk would be garbage). */
function dropFrom<T>(slots: T[], gone: ReadonlySet<T>): void {
  let kept = 0;
  for (const slot of slots) if (!gone.has(slot)) slots[kept++] = slot;
  slots.length = kept;
}

export class SeedState {
  readonly slugs = new Set<string>();
  /** lower-cased, as the people service compares them */
  readonly emails = new Set<string>();
  /** upper-cased, as the bookings service compares them */
  readonly codes = new Set<string>();
  readonly countries = new Set<string>();
  /** active products, with their active pricing options and their extensions, in store order */
  readonly entries = new Map<string, CatalogEntry>();
  /** bookable departures (of active products, from tomorrow on), in store order */
  slots: OpenSlot[] = [];
  /** the workspace's people by age group at the anchor day, in store order */
  readonly pools: PeoplePools = { adults: [], children: [], infants: [] };
  readonly counts = { products: 0, people: 0, bookings: 0 };
  /** the prefix of the workspace's booking codes (the first booking's), null without bookings */
  prefix: string | null = null;
  #versions: number[] = [];
  /** seats left on the bookable departures, kept as they change (capacityTopUp reads it for every chunk) */
  #openSeats = 0;
  /** departures starting before this day (YYYY-MM-DD) are no longer bookable */
  readonly #tomorrow: string;

  private constructor(
    private readonly store: Store,
    readonly workspaceId: string,
    readonly anchorDayMs: number,
  ) {
    this.#tomorrow = isoDay(anchorDayMs, 1);
  }

  static build(store: Store, workspaceId: string, anchorDayMs: number): SeedState {
    const state = new SeedState(store, workspaceId, anchorDayMs);
    const products = PRODUCTS.in(store).list(workspaceId);
    const people = PEOPLE.in(store).list(workspaceId);
    const bookings = BOOKINGS.in(store).list(workspaceId);
    state.#addProducts(products, PRICING_OPTIONS.in(store).list(workspaceId), EXTENSIONS.in(store).list(workspaceId));
    for (const departure of DEPARTURES.in(store).list(workspaceId)) if (state.#bookable(departure)) state.#addSlot({ ...departure });
    state.#addPeople(people);
    for (const booking of bookings) state.codes.add(booking.code.toUpperCase());
    state.prefix = codePrefix(bookings);
    Object.assign(state.counts, { products: products.length, people: people.length, bookings: bookings.length });
    state.#versions = state.#currentVersions();
    return state;
  }

  /** Seats left on the bookable departures, all of them. */
  get openSeats(): number {
    return this.#openSeats;
  }

  /** Nobody else has written what it derives from since it was built or last updated, and the anchor day is the same. */
  isCurrent(store: Store, workspaceId: string, anchorDayMs: number): boolean {
    if (store !== this.store || workspaceId !== this.workspaceId || anchorDayMs !== this.anchorDayMs) return false;
    const now = this.#currentVersions();
    return now.every((v, i) => v === this.#versions[i]);
  }

  /**
   * After a chunk's commit: adds its rows as a fresh build would see them
   * (store order is insertion order; an updated row keeps its place), and
   * takes back what the generator changed on slots without committing it.
   * The slugs, e-mails and codes were added while the chunk was made unique.
   */
  absorb(sink: RowSink, newSlots: readonly DepartureSlot[], touched: readonly OpenSlot[]): void {
    const ws = this.workspaceId;
    const products = sink.rows(PRODUCTS, ws);
    const people = this.#stored(PEOPLE, sink.rows(PEOPLE, ws));
    this.#addProducts(products, sink.rows(PRICING_OPTIONS, ws), sink.rows(EXTENSIONS, ws));
    const closed = new Set<OpenSlot>();
    // only the slots the chunk's bookings went on changed (the generator says which: seed-generate.ts)
    for (const slot of touched) {
      const { departure, committed } = slot;
      if (departure.seatsLeft !== committed.seatsLeft) {
        this.#openSeats += departure.seatsLeft - committed.seatsLeft;
        // finalised and committed by the chunk: the private copy is now what is stored
        slot.committed = { seatsLeft: departure.seatsLeft, status: departure.status, touchedMs: Date.parse(departure.updatedAt) };
        slot.touchedMs = slot.committed.touchedMs;
        if (!this.#bookable(departure)) closed.add(slot); // sold out
      } else {
        slot.touchedMs = committed.touchedMs; // a cancelled booking moved it, but the departure was not written
      }
    }
    if (closed.size > 0) {
      dropFrom(this.slots, closed);
      for (const slot of closed) this.#openSeats -= slot.departure.seatsLeft;
    }
    for (const { departure } of newSlots) if (this.#bookable(departure)) this.#addSlot(departure);
    this.#addPeople(people);
    this.counts.products += products.length;
    this.counts.people += people.length;
    const bookings = sink.rows(BOOKINGS, ws);
    for (const booking of bookings) {
      // the store's copy of the code (equal), so that this set holds no string of its own
      const code = BOOKINGS.in(this.store).get(ws, booking.id)?.code.toUpperCase();
      if (code !== undefined && this.codes.delete(code)) this.codes.add(code);
    }
    this.counts.bookings += bookings.length;
    this.prefix ??= codePrefix(bookings);
    this.#versions = this.#currentVersions();
  }

  /**
   * The committed copies of `rows` (the commit applied them already; equal
   * values). The state lives as long as the store, so holding the generator's
   * objects would keep a second copy of every seeded person: about 0.5 KB of heap per
   * seeded booking (docs/benchmarks.md "Memory").
   */
  #stored<T extends StoredRow>(collection: Collection<T>, rows: readonly T[]): T[] {
    const committed = collection.in(this.store);
    return rows.map((row) => committed.get(this.workspaceId, row.id) ?? row);
  }

  #currentVersions(): number[] {
    return DERIVED_FROM.map((collection) => collection.in(this.store).version(this.workspaceId));
  }

  #addProducts(products: readonly Product[], options: readonly PricingOption[], extensions: readonly Extension[]): void {
    for (const product of products) {
      this.slugs.add(product.slug);
      this.countries.add(product.destination.country);
      if (product.status === 'active') this.entries.set(product.id, { product, options: [], extensions: [] });
    }
    for (const o of options) if (o.active) this.entries.get(o.productId)?.options.push(o);
    for (const e of extensions) this.entries.get(e.productId)?.extensions.push(e);
  }

  #bookable(d: Departure): boolean {
    return (d.status === 'scheduled' || d.status === 'guaranteed') && d.startDate >= this.#tomorrow && this.entries.has(d.productId);
  }

  /** `departure` must be a copy no one else holds: the generator takes seats on it. */
  #addSlot(departure: Departure): void {
    const touchedMs = Date.parse(departure.updatedAt);
    this.#openSeats += departure.seatsLeft;
    this.slots.push({
      departure,
      entry: this.entries.get(departure.productId)!,
      createdMs: Date.parse(departure.createdAt),
      touchedMs,
      committed: { seatsLeft: departure.seatsLeft, status: departure.status, touchedMs },
    });
  }

  /** By age at the anchor day; 12-17 year olds are left out, as the generator makes none. */
  #addPeople(people: readonly Person[]): void {
    for (const person of people) {
      const email = person.email.toLowerCase();
      this.emails.delete(email); // added by the generator's copy while made unique: keep the stored one
      this.emails.add(email);
      const age = person.dateOfBirth === null ? Infinity : (this.anchorDayMs - Date.parse(person.dateOfBirth)) / YEAR_MS;
      if (age >= 18) this.pools.adults.push(person);
      else if (age >= 2 && age < 12) this.pools.children.push(person);
      else if (age >= 0 && age < 2) this.pools.infants.push(person);
    }
  }
}
