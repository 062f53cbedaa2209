import { Clock } from '../core/clock.ts';
import { clockOps, restoreSavedClock, type ClockOrigin } from '../core/saved-clock.ts';
import { DEFAULT_MANUAL_CLOCK_START, type ResolvedOptions } from '../config.ts';
import { SandboxError } from './sandbox-error.ts';
import type { OpenedStorage } from './storage.ts';

/** The sandbox's one clock (docs/architecture.md, "Workspace clocks"): real or manual, from `clockStart`. */
export function buildClock(options: ResolvedOptions): Clock {
  return new Clock(options.clock, clockStart(options));
}

/**
 * The clock saved in a database file (docs/storage.md, "The clock is saved") put back, and kept saved from now on (a store in
 * memory is never started again). After the fixtures (dated from the clock a reset goes back to),
 * before the services schedule their stored due times on it.
 */
export function restoreClock(clock: Clock, storage: OpenedStorage, options: ResolvedOptions): ClockOrigin {
  const origin = restoreSavedClock(clock, storage.store, {
    newDatabase: storage.fresh,
    fresh: options.freshClock,
    explicitStart: options.clockStart !== undefined,
  });
  if (storage.engine.path) clock.saveWith((changes) => storage.store.commit(clockOps(changes)));
  return origin;
}

function clockStart(options: ResolvedOptions): number | undefined {
  const raw = options.clockStart ?? (options.clock === 'manual' ? DEFAULT_MANUAL_CLOCK_START : undefined);
  if (raw === undefined) return undefined;
  const ms = typeof raw === 'number' ? raw : Date.parse(raw);
  if (Number.isNaN(ms)) throw new SandboxError(`Invalid clock start "${raw}": use an ISO 8601 time`);
  return ms;
}
