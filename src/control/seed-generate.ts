import type { OpenSlot, SeedState } from './seed-state.ts';
import type { WorkspaceRecord } from '../core/tenancy.ts';
import { DAY_MS, type GenContext } from '../fixtures/context.ts';
import { generateBookingsOn, type BookingWindow } from '../fixtures/generate-bookings.ts';
import { generateCatalog } from '../fixtures/generate-catalog.ts';
import { finalizeDepartures, generateDepartures, type DepartureSlot } from '../fixtures/generate-departures.ts';
import { generatePeople, type PeoplePools } from '../fixtures/generate-people.ts';
import type { FixtureFile } from '../fixtures/schema.ts';
import { BOOKINGS } from '../resources/bookings/collections.ts';
import type { Booking } from '../resources/bookings/schemas.ts';
import { COUPONS } from '../resources/catalog/collections.ts';
import type { Coupon } from '../resources/catalog/schemas.ts';
import type { Organization } from '../resources/organizations/schemas.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import type { Person } from '../resources/people/schemas.ts';
import type { Product } from '../resources/products/schemas.ts';

/**
 * What one chunk of a seed run makes (seed.ts runs the chunks and commits them): the fixture
 * generator's building blocks on the carried state, the rows made unique against the workspace,
 * and, for a run, when its bookings were made.
 */
/** A chunk's place in its run: the fractions of the run's bookings made before it and after it. */
export interface RunPart {
  from: number;
  to: number;
}

/**
 * A run's bookings were made in the last 30 days, up to an hour ago: a generated departure is
 * created 30 days ago or earlier (generate-departures.ts), so every one the run may book existed.
 */
const SEED_HISTORY_MS = 30 * DAY_MS;

/**
 * The chunk's share of the run's booking history: a run writes its bookings in date order
 * (generate-bookings.ts, bookingTime), so that a list page's rows sit together in the packed
 * pages (docs/storage.md, "Packed partitions").
 */
export function bookingWindow(now: number, part: RunPart): BookingWindow {
  const start = now - SEED_HISTORY_MS;
  const span = SEED_HISTORY_MS - 3_600_000;
  return { fromMs: start + Math.floor(span * part.from), toMs: start + Math.floor(span * part.to) };
}

export function generate(gen: GenContext, state: SeedState, coupons: readonly Coupon[], window: BookingWindow) {
  for (const coupon of coupons) gen.put(COUPONS, coupon); // read by generateBookings, never written back
  const catalog = generateCatalog(gen);
  renameTaken(
    catalog.map((e) => e.product),
    state.slugs,
  );
  const newSlots = generateDepartures(gen, catalog);
  const oldSlots = state.slots;
  const fresh = generatePeople(gen);
  // new people first, then the workspace's own
  const pools: PeoplePools = {
    adults: concatView(fresh.adults, state.pools.adults),
    children: concatView(fresh.children, state.pools.children),
    infants: concatView(fresh.infants, state.pools.infants),
  };
  uniqueEmails(gen.rows(PEOPLE), state.emails);
  // the open slots, new first, as generateBookings would filter them: the state's are all open
  // (bookable), so one plain copy instead of a spread and a filter. Not concatView: a
  // booking that finds no seat in 12 draws scans every slot, which a proxy makes slow
  const touched = new Set<DepartureSlot>();
  generateBookingsOn(gen, newSlots.filter((s) => s.departure.status !== 'cancelled').concat(oldSlots), pools, { window, touched });
  uniqueCodes(gen, gen.rows(BOOKINGS), state.codes);
  // the state's slots the bookings went on, not a walk of every slot per chunk (with
  // 5,000 products that walk, here and in the state, was a third of a seed of small chunks)
  const touchedOld = [...touched].filter((s): s is OpenSlot => 'committed' in s);
  const changedSlots = touchedOld.filter((s) => s.departure.seatsLeft !== s.committed.seatsLeft);
  finalizeDepartures(gen, [...newSlots, ...changedSlots]);
  // more bookings never take a guarantee back (an operator may have guaranteed a departure early)
  for (const s of changedSlots) if (s.committed.status === 'guaranteed' && s.departure.status === 'scheduled') s.departure.status = 'guaranteed';
  return { newSlots, changedSlots, touchedOld };
}

/**
 * `head` then `tail` as one read-only list, without copying `tail`: the
 * workspace's people, tens of thousands, copied into a new array for
 * every chunk, would stay (too large for the young generation)
 * in memory as garbage until a full GC: about 100 MiB of RSS after seeding
 * 100k bookings (docs/benchmarks.md "Memory"). The generator only
 * reads a pool's length and items by index (generate-bookings.ts, sample.ts).
 */
export function concatView<T>(head: readonly T[], tail: readonly T[]): T[] {
  if (head.length === 0) return tail as T[];
  const at = (i: number): T | undefined => (i < head.length ? head[i] : tail[i - head.length]);
  return new Proxy(tail as T[], {
    get(target, key, receiver) {
      if (key === 'length') return head.length + target.length;
      if (typeof key === 'string' && /^(?:0|[1-9]\d*)$/.test(key)) return at(Number(key));
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      if (typeof key === 'string' && /^(?:0|[1-9]\d*)$/.test(key)) return Number(key) < head.length + target.length;
      return Reflect.has(target, key);
    },
    set() {
      return false; // read-only: a write would land in the state's own pool
    },
  });
}

/** A fixture file describing only what to add; the workspace facts come from its record and data. */
export function fixtureFor(
  workspace: WorkspaceRecord,
  state: SeedState,
  organizations: readonly Organization[],
  products: number,
  bookings: number,
): FixtureFile {
  const prefix =
    state.prefix ??
    workspace.name
      .toUpperCase()
      .replace(/[^A-Z]/g, '')
      .slice(0, 3)
      .padEnd(3, 'X');
  return {
    workspace: {
      id: workspace.id,
      name: workspace.name,
      mode: workspace.mode,
      currency: workspace.currency,
      taxRateBps: workspace.taxRateBps,
      timezone: workspace.timezone,
      bookingCodePrefix: prefix,
      keys: [],
    },
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, slug: o.slug, contactEmail: o.contactEmail })),
    products: [],
    collections: [],
    coupons: [],
    policies: [],
    forms: [],
    galleryFolders: [],
    webhookSubscriptions: [],
    volume: {
      products,
      departuresPerProduct: { min: 2, max: 6 },
      // new products go where the workspace already sells
      countries: [...state.countries].sort(),
      people: Math.ceil(bookings / 2),
      bookings,
      galleryFiles: 0,
      deliveryEventDays: 0,
      emailsPerDay: 0,
    },
  };
}

/** Slugs are unique per workspace: a generated one that is taken gets a number. */
function renameTaken(products: Product[], taken: Set<string>): void {
  for (const product of products) {
    let n = 2;
    const { slug, title } = product;
    while (taken.has(product.slug)) Object.assign(product, { slug: `${slug}-${n}`, title: `${title} ${n++}` });
    taken.add(product.slug);
  }
}

/** E-mails are unique per workspace (the people service refuses duplicates). */
function uniqueEmails(people: Person[], taken: Set<string>): void {
  for (const person of people) {
    for (let n = 2; taken.has(person.email.toLowerCase()); n++) person.email = person.email.replace(/\d*@/, `${n}@`);
    taken.add(person.email.toLowerCase());
  }
}

/** Booking codes are unique per workspace; a taken one is drawn again. */
function uniqueCodes(gen: GenContext, bookings: Booking[], taken: Set<string>): void {
  const alphabet = [...'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'];
  for (const booking of bookings) {
    const prefix = booking.code.slice(0, booking.code.indexOf('-'));
    while (taken.has(booking.code)) booking.code = `${prefix}-${Array.from({ length: 6 }, () => gen.pick(alphabet)).join('')}`;
    taken.add(booking.code);
  }
}
