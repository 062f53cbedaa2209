import { resolve } from 'node:path';
import type { Clock } from '../core/clock.ts';
import { libraryWording } from '../core/option-advice.ts';
import { withClock } from '../core/saved-clock.ts';
import type { ResolvedOptions } from '../config.ts';
import { openFixtureSource, type FixtureSource } from '../fixtures/source.ts';
import { describeTakeover, openStore, OverlayStore, StoreError, type InitialCollections, type InstrumentedStore } from '../storage/index.ts';
import { freshenCopiedRow } from '../workspaces/templates.ts';

/** The sandbox's storage once opened: the engine, the store above it, and the fixtures that seed it. */
export interface OpenedStorage {
  /** the engine: memory plus the database file's journal (src/storage/, docs/storage.md) */
  engine: InstrumentedStore;
  /** created workspaces are copy-on-write views over their template (src/storage/overlay-store.ts) */
  store: OverlayStore;
  /** no database existed: it was seeded from the fixtures */
  fresh: boolean;
  /** one line each: what opening the database had to drop or take over */
  warnings: string[];
  fixtures: FixtureSource;
  /** the seed: in memory at once, durable once `engine.writeHeld()` has written a new file */
  seeded: Promise<void>;
  /** a state to store, with the clock saved alongside when there is a database file */
  withSavedClock: (state: InitialCollections) => InitialCollections;
}

/**
 * Opens the store and the fixture source, and seeds a new database. A new database file is first
 * written once the sandbox listens: a start that fails (a port in use) leaves none behind
 * (docs/storage.md, "Nothing written by a failed start"); the lock is taken now, and released when this fails.
 */
export async function openStorage(options: ResolvedOptions, clock: Clock): Promise<OpenedStorage> {
  const {
    store: engine,
    fresh,
    staleLock,
    warnings,
  } = await openStore({
    ...(options.storage === 'memory' ? {} : { path: resolve(options.storage) }),
    fsync: options.fsync,
    holdNewFile: true,
    recover: options.recover,
  }).catch((err: unknown) => {
    // storage says what fixes it as plain values; the library words it (storage knows no createSandbox option)
    if (err instanceof StoreError && err.advice) err.message = libraryWording(err.problem, err.advice);
    throw err;
  });
  // one line, as a person starting it again after kill -9 wants to know (docs/storage.md, "Lock")
  if (staleLock && engine.path) warnings.unshift(describeTakeover(engine.path, staleLock));
  const store = new OverlayStore(engine, { freshen: freshenCopiedRow, cachedRows: options.workspaceCacheRows });
  // the clock is saved with a database file (docs/storage.md, "The clock is saved"); a store in memory is never started again
  const withSavedClock = (state: InitialCollections): InitialCollections => (engine.path ? withClock(state, clock) : state);
  try {
    const fixtures = await openFixtureSource({ fixturesDir: options.fixturesDir, seed: options.seed, nowMs: clock.now(), seeding: fresh });
    let seeded: Promise<void> = Promise.resolve();
    if (fresh) {
      seeded = store.replaceAll(withSavedClock(await fixtures.initial()));
      seeded.catch(() => undefined); // awaited after listening, where its error is thrown
    }
    return { engine, store, fresh, warnings, fixtures, seeded, withSavedClock };
  } catch (err) {
    await engine.discardHeld().catch(() => undefined); // releases the lock
    throw err;
  }
}
