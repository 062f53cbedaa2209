import { SeededRandom } from '../core/random.ts';

/**
 * The retry schedule (API description, "Events": "Retry schedule and timing:
 * not shown"; the sandbox uses the Standard Webhooks reference schedule,
 * docs/webhooks.md). Delay before retry n (1-based). A subscription gets at
 * most `max_retries` (0-10) retries per event, so the table has ten entries.
 */
const S = 1000;
const M = 60 * S;
const H = 60 * M;
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H, 24 * H];

/** ±10 %: enough to spread a burst of retries, small enough to keep the schedule readable. */
export const JITTER = 0.1;
/** The longest Retry-After the sandbox honours; longer values are capped. */
export const MAX_RETRY_AFTER_MS = 24 * H;

/**
 * The longest a delivery's retries can take, from its first attempt to its last: each of the ten
 * retries at its longest, the schedule's delay with +10 % jitter or a receiver's Retry-After of
 * up to MAX_RETRY_AFTER_MS, whichever is longer (10d 4h 48m). `sandbox events wait` may advance a
 * workspace clock this far by default, so a delivery's whole retry schedule runs (docs/cli.md).
 */
export const LONGEST_RETRIES_MS = RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + Math.max(Math.round(ms * (1 + JITTER)), MAX_RETRY_AFTER_MS), 0);

/**
 * Delay before retry `retry` (1..10), scaled by `scale` (the webhookRetryScale
 * option) with deterministic jitter seeded by the delivery id, so the same
 * delivery retries at the same moments in every run.
 */
export function retryDelayMs(retry: number, seed: string, scale = 1): number {
  const base = RETRY_SCHEDULE_MS[Math.min(Math.max(retry, 1), RETRY_SCHEDULE_MS.length) - 1]!;
  const jitter = 1 + (new SeededRandom(`${seed}:${retry}`).next() * 2 - 1) * JITTER;
  return Math.round(base * scale * jitter);
}

/**
 * Parses a Retry-After header (delta seconds or an HTTP date) into a delay in
 * ms. An HTTP date is measured against the response's own Date header, so the
 * receiver's clock and the sandbox clock never need to agree.
 */
export function parseRetryAfter(value: string | undefined, responseDate: string | undefined): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(trimmed);
  const reference = responseDate ? Date.parse(responseDate) : NaN;
  if (Number.isNaN(at) || Number.isNaN(reference)) return null;
  return Math.min(Math.max(at - reference, 0), MAX_RETRY_AFTER_MS);
}

export type AttemptOutcome = 'succeeded' | 'gone' | 'retryable';

/** Only 2xx is success; a 3xx is a failure and is not followed; 410 deactivates the subscription. */
export function classify(status: number | null): AttemptOutcome {
  if (status !== null && status >= 200 && status < 300) return 'succeeded';
  if (status === 410) return 'gone';
  return 'retryable';
}

/** 429 and 503 may tell the sender when to come back. */
export const honoursRetryAfter = (status: number | null): boolean => status === 429 || status === 503;

/** The attempts a delivery may get in all: the first one and max_retries retries (0 once the subscription is gone). */
export function maxAttempts(subscription: { max_retries: number } | undefined): number {
  return (subscription?.max_retries ?? 0) + 1;
}

interface AttemptTimes {
  status: string;
  nextAttemptAt: string | null;
  attempts: { number: number; trigger: string; at: string }[];
}

/**
 * When the retry after attempt `number` ran or will run. A delivery record holds only its
 * current `nextAttemptAt`, which belongs to its latest attempt: an earlier attempt's next
 * retry is the automatic retry that followed it (so `sandbox listen` does not print the
 * delivery's current next retry on every attempt it reads in one poll). Null when none follows.
 */
export function nextRetryAfter(delivery: AttemptTimes, number: number): string | null {
  const later = delivery.attempts.find((a) => a.number > number && a.trigger === 'retry');
  if (later) return later.at;
  const latest = delivery.attempts.reduce((max, a) => Math.max(max, a.number), 0);
  return number >= latest && delivery.status === 'pending' ? delivery.nextAttemptAt : null;
}
