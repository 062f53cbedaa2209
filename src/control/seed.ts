import { conflict } from '../core/errors.ts';
import { bulkRuns, leaveCommitGroup, type Collection, type Op, type Store, type StoredRow } from '../storage/index.ts';
import { SeededRandom } from '../core/random.ts';
import type { WorkspaceRecord } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import { DAY_MS, GenContext, RowSink } from '../fixtures/context.ts';
import type { DepartureSlot } from '../fixtures/generate-departures.ts';
import type { Faker } from '@faker-js/faker';
import { BOOKING_ITEMS, BOOKINGS, PASSENGERS } from '../resources/bookings/collections.ts';
import { COUPONS, EXTENSIONS, PRICING_OPTIONS } from '../resources/catalog/collections.ts';
import { DEPARTURES } from '../resources/departures/collections.ts';
import { ORGANIZATIONS } from '../resources/organizations/collections.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import { PRODUCTS } from '../resources/products/collections.ts';
import type { ZodApp } from '../resources/types.ts';
import { serve } from '../http/route-table/serve.ts';
import { SEED_ROUTES, type SeedBody } from './contracts/seed.ts';
import { SeedState, type OpenSlot } from './seed-state.ts';
import { bookingWindow, fixtureFor, generate, type RunPart } from './seed-generate.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

export { concatView } from './seed-generate.ts';

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
    leaveCommitGroup(); // chunk by chunk, each chunk one commit (docs/storage.md, "One request, one commit")
    const result = await seedWorkspace(ctx, request.body);
    bulkRuns.ended(Object.values(result.created).reduce((sum, n) => sum + n, 0));
    return result;
  });
}

/**
 * The generation state seeding carries between chunks and runs, per store: the
 * last workspace seeded. A run holds it strongly (seedWorkspace keeps the one
 * its last chunk used); between runs only weakly, so that the next major GC
 * may take it: at 100k bookings it is ~7 MiB of sets and pools
 * (docs/benchmarks.md "Memory"). `sandbox seed` sends its 20 requests back to
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
 * health waited behind it (p99 300 ms beside a CPU hog); 25 made it
 * 2-5 ms and 20-40 ms, for the same total time. 10, once a chunk stopped
 * walking every bookable departure (seed-generate.ts, SeedState.absorb,
 * openSeats): health's p99 beside a hog 58-67 ms instead of 78-101, and a seed
 * of 5,000 products and 50,000 bookings as fast as at 25 (docs/benchmarks.md).
 */
const CHUNK_ITEMS = 10;
/**
 * Capacity a chunk makes sure of before it books (without it, `seed --bookings
 * 50000` made 22,135: the departures sold out). A booking takes 2.6 seats on
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
  const missing = bookings * SEATS_PER_BOOKING - state.openSeats;
  return missing > 0 ? Math.ceil(missing / SEATS_PER_PRODUCT) : 0;
}
/**
 * How far a seed run is: what it has made so far (never what it was asked for: a run whose
 * departures sell out makes fewer bookings) of the totals asked.
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
    state && state.pools.adults.length === 0
      ? 'the workspace has no adult customer to book for'
      : state && state.slots.length === 0
        ? 'no future departure of the workspace has a seat left, and the products added brought none'
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
    // bookings a chunk could not place are owed by the next ones (a run makes what it was asked)
    const owed = bookings - created.bookings!;
    const chunk = {
      products: Math.min(products - done.products, Math.max(products > 0 ? 1 : 0, Math.round(products * share))),
      bookings: Math.min(owed, Math.max(owed > 0 ? 1 : 0, Math.round(bookings * share))),
    };
    const result = seedChunk(ctx, workspace, faker, seed, chunk.products, chunk.bookings, {
      from: created.bookings! / Math.max(1, bookings),
      to: (created.bookings! + chunk.bookings) / Math.max(1, bookings),
    });
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
  let touchedOld: OpenSlot[];
  try {
    ({ newSlots, changedSlots, touchedOld } = generate(gen, state, COUPONS.in(ctx.store).list(workspace.id), bookingWindow(now, part)));
    // given, not copied through JSON (CommitOptions): built for this commit; the departures,
    // which the state goes on changing, are given as copies (commitOps)
    committed = ctx.store.commit(commitOps(ctx, workspace.id, sink, new Set(newSlots.map((s) => s.departure.id))), { rowsGiven: true });
    state.absorb(sink, newSlots, touchedOld);
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
      if (isNew && collection.in(ctx.store).has(ws, row.id))
        throw conflict('CONTROL_CONFLICT', `Seeding drew an id that already exists (${row.id}); try another seed`);
      ops.push(collection.putOp(ws, collection === DEPARTURES ? { ...row } : row));
    }
  }
  return ops;
}
