import type { Clock } from './clock.ts';
import { IDEMPOTENCY_RETENTION_MS, type Idempotency } from './idempotency.ts';

/** One sweep an hour: a record lives 24 h ("Idempotency"), so none outlives it by more than 1/24. */
export const IDEMPOTENCY_PURGE_EVERY_MS = IDEMPOTENCY_RETENTION_MS / 24;

/**
 * Deletes expired idempotency records every hour of the sandbox clock (never a
 * real timer: a manual clock sweeps when it is advanced past the hour). The
 * sweep belongs to no workspace; each record is judged on its own workspace's
 * clock (Idempotency.purgeExpired). A BackgroundService of the sandbox itself, not
 * of an area (createSandbox starts it beside the areas' services), typed by what it
 * uses so core/ imports nothing above it.
 */
export const idempotencyPurgeService = {
  name: 'idempotency-purge',
  start({ clock, idempotency }: { clock: Clock; idempotency: Idempotency }) {
    let cancel = () => {};
    const arm = () => {
      cancel = clock.schedule(
        clock.now() + IDEMPOTENCY_PURGE_EVERY_MS,
        () => {
          arm();
          return idempotency.purgeExpired();
        },
        null,
        { label: 'idempotency record purge', housekeeping: true },
      );
    };
    arm();
    return {
      stop: () => cancel(),
      // a reset restarts the clock: the next sweep is an hour from the new now, not from the old one
      afterReset: () => {
        cancel();
        arm();
      },
    };
  },
};
