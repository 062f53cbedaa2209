import { conflict } from '../core/errors.ts';
import { bulkRuns } from '../core/heap.ts';
import { SeededRandom } from '../core/random.ts';
import type { WorkspaceRecord } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import { DAY_MS, GenContext, RowSink } from '../fixtures/context.ts';
import { generateBookingsOn, type BookingWindow } from '../fixtures/generate-bookings.ts';
import { generateCatalog } from '../fixtures/generate-catalog.ts';
import { finalizeDepartures, generateDepartures, type DepartureSlot } from '../fixtures/generate-departures.ts';
import { generatePeople, type PeoplePools } from '../fixtures/generate-people.ts';
import type { Faker } from '@faker-js/faker';
import type { FixtureFile } from '../fixtures/schema.ts';
import { BOOKING_ITEMS, BOOKINGS, PASSENGERS } from '../resources/bookings/collections.ts';
import type { Booking } from '../resources/bookings/schemas.ts';
import { COUPONS, EXTENSIONS, PRICING_OPTIONS } from '../resources/catalog/collections.ts';
import type { Coupon } from '../resources/catalog/schemas.ts';
import { DEPARTURES } from '../resources/departures/collections.ts';
import { ORGANIZATIONS } from '../resources/organizations/collections.ts';
import type { Organization } from '../resources/organizations/schemas.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import type { Person } from '../resources/people/schemas.ts';
import { PRODUCTS } from '../resources/products/collections.ts';
import type { Product } from '../resources/products/schemas.ts';
import type { ZodApp } from '../resources/types.ts';
import type { Collection, StoredRow } from '../storage/collection.ts';
import type { Op, Store } from '../storage/types.ts';
import { serve } from './contract.ts';
import { SEED_ROUTES, type SeedBody } from './contracts/seed.ts';
import { SeedState } from './seed-state.ts';
import { requireWorkspace } from './workspace-keys.ts';

/**
 * POST /__sandbox/seed (`sandbox seed`): more volume in a running sandbox,
 * made by the fixture generator's own building blocks (src/fixtures), so the
 * rows follow the same schemas and look the same: products with pricing
 * options, extensions and departures; new customers; bookings on the new
 * and the existing future departures, priced, with passengers and items, and
 * seats taken. In chunks, each one commit, yielding between them (see
 * CHUNK_ITEMS). No domain events or webhooks are emitted:
 * this is data volume, like the fixtures. Documented in docs/cli.md; the
 * route's shapes are in ./contracts/seed.ts.
 */
/** Collections a seed run writes, in commit order. */
const WRITTEN: readonly Collection<StoredRow>[] = [PRODUCTS, PRICING_OPTIONS, EXTENSIONS, DEPARTURES, PEOPLE, BOOKINGS, PASSENGERS, BOOKING_ITEMS];
/** Without counts, a run adds this much. */
const DEFAULT_PRODUCTS = 10;
const DEFAULT_BOOKINGS = 50;

export function registerSeedControl(app: ZodApp, ctx: SandboxContext): void {
  serve(app, SEED_ROUTES.seed, async (request) => {
    bulkRuns.started();
    const result = await seedWorkspace(ctx, request.body);
    bulkRuns.ended(Object.values(result.created).reduce((sum, n) => sum + n, 0));
    return result;
  });
}

/**
 * The generation state seeding carries between chunks and runs, per store: the
 * last workspace seeded. A run holds it strongly (seedWorkspace keeps the one
 * its last chunk used); between runs only weakly, so that the next major GC
 * may take it: at 100k bookings it is ~7 MiB of sets and pools (issue 11,
 * docs/benchmarks.md "Memory"). `sandbox seed` sends its 20 requests back to
 * back, with little allocation between them, so it usually survives from one
 * to the next; if not, the next run builds it again, and that gives exactly
 * the same state (seed-state.ts), so the same rows.
 */
const carried = new WeakMap<Store, WeakRef<SeedState>>();

/** The state carried for `store`, if it is still in memory (for tests). */
export const carriedSeedState = (store: Store): SeedState | undefined => carried.get(store)?.deref();

function seedState(ctx: SandboxContext, ws: string, anchorDayMs: number): SeedState {
  const state = carried.get(ctx.store)?.deref();
  if (state?.isCurrent(ctx.store, ws, anchorDayMs)) return state;
  const fresh = SeedState.build(ctx.store, ws, anchorDayMs);
  carried.set(ctx.store, new WeakRef(fresh));
  return fresh;
}

/**
 * Work per chunk, a product counting as ten bookings. A chunk runs
 * synchronously (it owns the shared faker from its seeding to its commit), so
 * its size bounds how long other requests wait: a few ms, since the state it
 * builds on is carried (SeedState) rather than re-derived from the whole
 * workspace. The size is fixed, never timed: the chunk boundaries are part of
 * the seed, so the same seed on the same data gives the same rows. 100 made a
 * chunk take 16-26 ms at the median and 100-270 ms at p99 on a loaded 2-core
 * machine (mostly the commit: each row's JSON, interning, packing pages), and
 * health waited behind it (issue 27: p99 300 ms beside a CPU hog); 25 made it
 * 2-5 ms and 20-40 ms, for the same total time.
 */
const CHUNK_ITEMS = 25;
/**
 * Capacity a chunk makes sure of before it books (issue 27: `seed --bookings
 * 50000` made 22,135, the departures sold out). A booking takes 2.6 seats on
 * average (generate-bookings.ts, chooseParty); a new product brings about 65
 * (85% active, 2-6 departures, 8-120 seats each). Both are counted low, so
 * that bookings rarely land on a departure too full for them (which makes them
 * cancelled). Derived from the state only, never timed: same seed, same rows.
 */
const SEATS_PER_BOOKING = 4;
const SEATS_PER_PRODUCT = 40;
/** A run gives up after this many chunks in a row made none of the bookings owed. */
const MAX_STALLED = 3;

/** Products a chunk adds beyond those asked, so that its bookings find seats on future departures. */
export function capacityTopUp(state: SeedState, bookings: number): number {
  if (bookings === 0) return 0;
  let open = 0;
  for (const slot of state.slots) open += slot.departure.status === 'cancelled' ? 0 : slot.departure.seatsLeft;
  const missing = bookings * SEATS_PER_BOOKING - open;
  return missing > 0 ? Math.ceil(missing / SEATS_PER_PRODUCT) : 0;
}
/**
 * How far a seed run is: what it has made so far (never what it was asked for: a run whose
 * departures sell out makes fewer bookings, issue 29) of the totals asked.
 */
export interface SeedProgress {
  products: number;
  bookings: number;
  totalProducts: number;
  totalBookings: number;
}

/**
 * Why a run made fewer bookings than asked (the only rows a run can fall short
 * of): since chunks add products when seats run short, only when
 * MAX_STALLED chunks in a row could place none.
 */
function shortfallOf(created: number, asked: number, state: SeedState | null): string | undefined {
  if (created >= asked) return undefined;
  const why =
    state && state.pools.adults.length === 0 ? 'the workspace has no adult customer to book for'
    : state && state.slots.length === 0 ? 'no future departure of the workspace has a seat left, and the products added brought none'
    : 'the departures left could not take the other parties';
  return `created ${created.toLocaleString('en')} of ${asked.toLocaleString('en')} bookings: ${why}`;
}

/** `onProgress` hears of each chunk once its rows are on disk (in memory mode: at once). */
export async function seedWorkspace(ctx: SandboxContext, body: SeedBody, onProgress: (p: SeedProgress) => void = () => undefined) {
  const started = performance.now();
  const workspace = requireWorkspace(ctx, body.workspaceId);
  const products = body.products ?? (body.bookings === undefined ? DEFAULT_PRODUCTS : 0);
  const bookings = body.bookings ?? (body.products === undefined ? DEFAULT_BOOKINGS : 0);
  const seed = body.seed ?? ctx.options.seed;
  // Loaded on demand, as the fixture generator does (the same module, so the same instance).
  const { faker } = await import('@faker-js/faker/locale/en');
  const created: Record<string, number> = Object.fromEntries(WRITTEN.map((c) => [c.name, 0]));
  const touched = new Set<string>();
  const done = { products: 0 }; // products asked of the chunks so far (top-ups come on top: see capacityTopUp)
  // every chunk takes products and bookings in the run's own ratio
  const share = Math.min(1, CHUNK_ITEMS / Math.max(1, products * 10 + bookings));
  // the last chunk's commit: its flush to disk overlaps the making of the next chunk
  let inFlight: Promise<unknown> = Promise.resolve();
  let held: SeedState | null = null; // the carried state, strongly held while the run lasts
  let stalled = 0; // chunks in a row that made no booking of those still owed
  do {
    // bookings a chunk could not place are owed by the next ones (issue 27: a run makes what it was asked)
    const owed = bookings - created.bookings!;
    const chunk = {
      products: Math.min(products - done.products, Math.max(products > 0 ? 1 : 0, Math.round(products * share))),
      bookings: Math.min(owed, Math.max(owed > 0 ? 1 : 0, Math.round(bookings * share))),
    };
    const result = seedChunk(ctx, workspace, faker, seed, chunk.products, chunk.bookings, { from: created.bookings! / Math.max(1, bookings), to: (created.bookings! + chunk.bookings) / Math.max(1, bookings) });
    held = result.state;
    for (const { name } of WRITTEN) created[name]! += result.created[name] ?? 0;
    for (const id of result.touched) touched.add(id);
    done.products += chunk.products;
    stalled = chunk.bookings > 0 && !result.created.bookings ? stalled + 1 : 0;
    const progress = { products: created.products!, bookings: created.bookings!, totalProducts: products, totalBookings: bookings };
    await inFlight; // a failed write stops the run here, one chunk later at most
    inFlight = result.committed.then(() => onProgress(progress));
    inFlight.catch(() => undefined); // awaited next round: until then, not an unhandled rejection
    // yield: requests that arrived meanwhile (health, the dashboard) are served between chunks
    await new Promise((resolve) => setImmediate(resolve));
  } while ((done.products < products || created.bookings! < bookings) && stalled < MAX_STALLED);
  await inFlight; // acknowledged once every chunk is on disk
  const shortfall = shortfallOf(created.bookings!, bookings, held);
  return {
    workspaceId: workspace.id,
    seed,
    created,
    updated: { departures: touched.size },
    requested: { products, bookings },
    ...(shortfall ? { shortfall } : {}),
    ms: Math.round((performance.now() - started) * 100) / 100,
  };
}

/**
 * One chunk, generated on the state as it is now and committed (one commit:
 * atomic) before anything else runs: it is synchronous, so no write is lost
 * and nothing else draws from the shared faker meanwhile. `committed` resolves
 * once the rows are on disk.
 */
function seedChunk(ctx: SandboxContext, workspace: WorkspaceRecord, faker: Faker, seed: number, products: number, bookings: number, part: RunPart) {
  const now = ctx.clock.now();
  const state = seedState(ctx, workspace.id, Math.floor(now / DAY_MS) * DAY_MS);
  // The state is part of the seed: the same seed on the same data gives the same rows,
  // and running it again adds new rows instead of overwriting the last run's.
  const salt = [state.counts.products, state.counts.people, state.counts.bookings];
  faker.seed([seed, ...salt]);
  const sink = new RowSink();
  const fixture = fixtureFor(workspace, state, ORGANIZATIONS.in(ctx.store).list(workspace.id), products + capacityTopUp(state, bookings), bookings);
  const gen = new GenContext(faker, new SeededRandom(`seed:${seed}:${workspace.id}:${salt.join(':')}`), now, fixture, sink);
  let committed: Promise<void>;
  let newSlots: DepartureSlot[];
  let changedSlots: DepartureSlot[];
  try {
    ({ newSlots, changedSlots } = generate(gen, state, COUPONS.in(ctx.store).list(workspace.id), bookingWindow(now, part)));
    // given, not copied through JSON (CommitOptions): built for this commit; the departures,
    // which the state goes on changing, are given as copies (commitOps)
    committed = ctx.store.commit(commitOps(ctx, workspace.id, sink, new Set(newSlots.map((s) => s.departure.id))), { rowsGiven: true });
    state.absorb(sink, newSlots);
  } catch (err) {
    carried.delete(ctx.store); // generation changed the state's slots and sets: build it again
    throw err;
  }
  const created = Object.fromEntries(WRITTEN.map((c) => [c.name, sink.rows(c, workspace.id).length]));
  created.departures = newSlots.length;
  return {
    state,
    created,
    touched: changedSlots.map((s) => s.departure.id),
    committed: committed.catch((err: unknown) => {
      carried.delete(ctx.store); // a refused commit applied nothing: the state would be ahead of the store
      throw err;
    }),
  };
}

/** A chunk's place in its run: the fractions of the run's bookings made before it and after it. */
interface RunPart {
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
 * pages (issue 27).
 */
function bookingWindow(now: number, part: RunPart): BookingWindow {
  const start = now - SEED_HISTORY_MS;
  const span = SEED_HISTORY_MS - 3_600_000;
  return { fromMs: start + Math.floor(span * part.from), toMs: start + Math.floor(span * part.to) };
}

function generate(gen: GenContext, state: SeedState, coupons: readonly Coupon[], window: BookingWindow) {
  for (const coupon of coupons) gen.put(COUPONS, coupon); // read by generateBookings, never written back
  const catalog = generateCatalog(gen);
  renameTaken(catalog.map((e) => e.product), state.slugs);
  const newSlots = generateDepartures(gen, catalog);
  const oldSlots = state.slots;
  const fresh = generatePeople(gen);
  // new people first, then the workspace's own
  const pools: PeoplePools = { adults: concatView(fresh.adults, state.pools.adults), children: concatView(fresh.children, state.pools.children), infants: concatView(fresh.infants, state.pools.infants) };
  uniqueEmails(gen.rows(PEOPLE), state.emails);
  // the open slots, new first, as generateBookings would filter them: the state's are all open
  // (bookable), so one plain copy instead of a spread and a filter (issue 27). Not concatView: a
  // booking that finds no seat in 12 draws scans every slot, which a proxy makes slow
  generateBookingsOn(gen, newSlots.filter((s) => s.departure.status !== 'cancelled').concat(oldSlots), pools, window);
  uniqueCodes(gen, gen.rows(BOOKINGS), state.codes);
  const changedSlots = oldSlots.filter((s) => s.departure.seatsLeft !== s.committed.seatsLeft);
  finalizeDepartures(gen, [...newSlots, ...changedSlots]);
  // more bookings never take a guarantee back (an operator may have guaranteed a departure early)
  for (const s of changedSlots) if (s.committed.status === 'guaranteed' && s.departure.status === 'scheduled') s.departure.status = 'guaranteed';
  return { newSlots, changedSlots };
}

/**
 * `head` then `tail` as one read-only list, without copying `tail`: the
 * workspace's people, tens of thousands, were copied into a new array for
 * every chunk, and those arrays (too large for the young generation) stayed
 * in memory as garbage until a full GC: about 100 MiB of RSS after seeding
 * 100k bookings (issue 11, docs/benchmarks.md "Memory"). The generator only
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
function fixtureFor(workspace: WorkspaceRecord, state: SeedState, organizations: readonly Organization[], products: number, bookings: number): FixtureFile {
  const prefix = state.prefix ?? workspace.name.toUpperCase().replace(/[^A-Z]/g, '').slice(0, 3).padEnd(3, 'X');
  return {
    workspace: {
      id: workspace.id, name: workspace.name, mode: workspace.mode, currency: workspace.currency,
      taxRateBps: workspace.taxRateBps, timezone: workspace.timezone, bookingCodePrefix: prefix, keys: [],
    },
    organizations: organizations.map((o) => ({ id: o.id, name: o.name, slug: o.slug, contactEmail: o.contactEmail })),
    products: [], collections: [], coupons: [], policies: [], forms: [], galleryFolders: [], webhookSubscriptions: [],
    volume: {
      products,
      departuresPerProduct: { min: 2, max: 6 },
      // new products go where the workspace already sells
      countries: [...state.countries].sort(),
      people: Math.ceil(bookings / 2),
      bookings,
      galleryFiles: 0, deliveryEventDays: 0, emailsPerDay: 0,
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

/**
 * Puts for every generated row, given to the store (not copied); a drawn id
 * that already exists stops the run (409) rather than overwrite. A departure is
 * given as a copy: the state's slot keeps the generator's object, whose seats
 * later chunks take (SeedState). The other rows are only read afterwards.
 */
function commitOps(ctx: SandboxContext, ws: string, sink: RowSink, newDepartures: ReadonlySet<string>): Op[] {
  const ops: Op[] = [];
  for (const collection of WRITTEN) {
    for (const row of sink.rows(collection, ws)) {
      const isNew = collection !== DEPARTURES || newDepartures.has(row.id);
      if (isNew && collection.in(ctx.store).has(ws, row.id)) throw conflict('CONTROL_CONFLICT', `Seeding drew an id that already exists (${row.id}); try another seed`);
      ops.push(collection.putOp(ws, collection === DEPARTURES ? { ...row } : row));
    }
  }
  return ops;
}
