import type { Clock } from './clock.ts';

/**
 * Rate limits (API description, "Limits"): per workspace, sandbox 100/min with a
 * burst of 5/s, live 3,000/min with a burst of 30/s.
 *
 * Two meters per bucket:
 * - a minute quota over fixed windows aligned to the clock's minute; this is the
 *   limit the X-RateLimit-* headers report, and X-RateLimit-Reset is the end of
 *   the window as a Unix timestamp;
 * - the burst. A workspace's "burst N requests per second" is exactly that: at
 *   most N requests within any one second (a sliding window over the times of
 *   the last N; API description, "Limits"). An organization key's `burst` keeps its own
 *   meaning: a token bucket of `burst` tokens refilling at its minute rate.
 * A request passes only when every meter of every bucket allows it, and only
 * then consumes from all of them.
 */
export interface RatePolicy {
  perMinute: number;
  burst: number;
  /** optional per-second cap (organization keys' `rps`) */
  perSecond?: number;
  /** the burst is `burst` requests within any window of this many ms (workspaces: 1000), not a token bucket */
  burstWindowMs?: number;
}

export const WORKSPACE_LIMITS: Record<'live' | 'sandbox', RatePolicy> = {
  live: { perMinute: 3000, burst: 30, burstWindowMs: 1000 },
  sandbox: { perMinute: 100, burst: 5, burstWindowMs: 1000 },
};

export interface BucketState {
  key: string;
  /** the workspace whose clock the bucket's windows follow (null: the global clock) */
  workspaceId: string | null;
  policy: RatePolicy;
  windowStart: number;
  used: number;
  secondStart: number;
  usedThisSecond: number;
  tokens: number;
  refilledAt: number;
  /** with `burstWindowMs`: the times of the last `burst` requests, oldest first */
  recent: number[];
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the minute window resets */
  reset: number;
  /** whole seconds to wait, when not allowed */
  retryAfter: number;
}

const MINUTE = 60_000;

export class RateLimiter {
  private buckets = new Map<string, BucketState>();

  constructor(private readonly clock: Clock) {}

  /** Checks all buckets together; consumes one request from each only if all allow. */
  take(specs: ReadonlyArray<{ key: string; policy: RatePolicy }>, enforce = true): RateDecision {
    const now = this.clock.now();
    const states = specs.map((s) => this.refresh(this.bucket(s.key, s.policy), now));
    const waits = states.map((b) => waitMs(b, now));
    const blocked = waits.some((w) => w > 0);
    if (!blocked || !enforce) for (const b of states) consume(b, now);
    const reported = states.reduce((tightest, b) => (remaining(b) < remaining(tightest) ? b : tightest), states[0]!);
    return {
      allowed: !blocked || !enforce,
      limit: reported.policy.perMinute,
      remaining: remaining(reported),
      reset: Math.ceil((reported.windowStart + MINUTE) / 1000),
      retryAfter: blocked ? Math.max(1, Math.ceil(Math.max(...waits) / 1000)) : 0,
    };
  }

  /**
   * The meter that refuses longest, the one Retry-After reports (and the
   * 429's reason). Called only when refusing, right after `take`: nothing is consumed.
   */
  blocking(
    specs: ReadonlyArray<{ key: string }>,
  ): { key: string; workspaceId: string | null; policy: RatePolicy; meter: RateMeter; waitMs: number; atMs: number } | null {
    const now = this.clock.now();
    let worst: ReturnType<RateLimiter['blocking']> = null;
    for (const { key } of specs) {
      const b = this.buckets.get(key);
      if (!b) continue;
      this.refresh(b, now);
      for (const meter of ['minute', 'second', 'burst'] as const) {
        const wait = meterWaitMs(b, now, meter);
        if (wait > 0 && (!worst || wait > worst.waitMs)) worst = { key, workspaceId: b.workspaceId, policy: b.policy, meter, waitMs: wait, atMs: now + wait };
      }
    }
    return worst;
  }

  /** What the headers say without consuming anything (unauthenticated requests). */
  peek(key: string, policy: RatePolicy): RateDecision {
    const b = this.refresh(this.buckets.get(key) ?? fresh(key, policy, this.clock.now(), null), this.clock.now());
    return { allowed: true, limit: policy.perMinute, remaining: remaining(b), reset: Math.ceil((b.windowStart + MINUTE) / 1000), retryAfter: 0 };
  }

  /** Empties a bucket so that the next request is refused (control plane). */
  /** Empties the minute window, the burst tokens, or both (the default): the next request gets 429. */
  exhaust(key: string, policy: RatePolicy, window: 'burst' | 'minute' | 'both' = 'both'): void {
    const b = this.refresh(this.bucket(key, policy), this.clock.now());
    if (window !== 'burst') b.used = b.policy.perMinute;
    if (window !== 'minute') {
      b.tokens = 0;
      if (b.policy.burstWindowMs !== undefined) b.recent = Array.from({ length: b.policy.burst }, () => b.refilledAt);
    }
  }

  snapshot(): BucketState[] {
    return [...this.buckets.values()].map((b) => {
      const state = this.refresh(b, this.clock.nowIn(b.workspaceId));
      return { ...state, recent: [...state.recent] };
    });
  }

  clear(): void {
    this.buckets.clear();
  }

  /** Drops buckets (a workspace reset or deleted): they start full again. */
  forget(keys: Iterable<string>): void {
    for (const key of keys) this.buckets.delete(key);
  }

  private bucket(key: string, policy: RatePolicy): BucketState {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = fresh(key, policy, this.clock.now(), this.clock.current())));
    else if (
      b.policy.perMinute !== policy.perMinute ||
      b.policy.burst !== policy.burst ||
      b.policy.perSecond !== policy.perSecond ||
      b.policy.burstWindowMs !== policy.burstWindowMs
    ) {
      b.policy = policy;
      b.tokens = Math.min(b.tokens, policy.burst);
      b.recent = policy.burstWindowMs === undefined ? [] : b.recent.slice(-policy.burst);
    }
    return b;
  }

  private refresh(b: BucketState, now: number): BucketState {
    const windowStart = Math.floor(now / MINUTE) * MINUTE;
    if (windowStart !== b.windowStart) {
      b.windowStart = windowStart;
      b.used = 0;
    }
    const secondStart = Math.floor(now / 1000) * 1000;
    if (secondStart !== b.secondStart) {
      b.secondStart = secondStart;
      b.usedThisSecond = 0;
    }
    const window = b.policy.burstWindowMs;
    if (window !== undefined) {
      while (b.recent.length > 0 && b.recent[0]! <= now - window) b.recent.shift();
      b.tokens = b.policy.burst - b.recent.length;
    } else {
      const elapsed = Math.max(0, now - b.refilledAt);
      b.tokens = Math.min(b.policy.burst, b.tokens + (elapsed * b.policy.perMinute) / MINUTE);
    }
    b.refilledAt = now;
    return b;
  }
}

function fresh(key: string, policy: RatePolicy, now: number, workspaceId: string | null): BucketState {
  return {
    key,
    workspaceId,
    policy,
    windowStart: Math.floor(now / MINUTE) * MINUTE,
    used: 0,
    secondStart: Math.floor(now / 1000) * 1000,
    usedThisSecond: 0,
    tokens: policy.burst,
    refilledAt: now,
    recent: [],
  };
}

const remaining = (b: BucketState) => Math.max(0, b.policy.perMinute - b.used);

function consume(b: BucketState, now: number): void {
  b.used += 1;
  b.usedThisSecond += 1;
  b.tokens = Math.max(0, b.tokens - 1);
  if (b.policy.burstWindowMs !== undefined) {
    b.recent.push(now);
    if (b.recent.length > b.policy.burst) b.recent.shift(); // not enforced: the last `burst` are enough
  }
}

/** 0 when the bucket allows a request now, else how long until it would. */
function waitMs(b: BucketState, now: number): number {
  let wait = 0;
  if (b.used >= b.policy.perMinute) wait = Math.max(wait, b.windowStart + MINUTE - now);
  if (b.policy.perSecond !== undefined && b.usedThisSecond >= b.policy.perSecond) wait = Math.max(wait, b.secondStart + 1000 - now);
  return Math.max(wait, burstWaitMs(b, now));
}

/** The burst's share: until the oldest of the last `burst` leaves the window, or a whole token has refilled. */
function burstWaitMs(b: BucketState, now: number): number {
  const window = b.policy.burstWindowMs;
  // at most the window: read from a clock behind the bucket's own (the global one), its times lie ahead
  if (window !== undefined) return b.recent.length >= b.policy.burst ? Math.min(window, b.recent[0]! + window - now) : 0;
  // tokens are fractional: wait until a whole token has refilled
  return b.tokens < 1 ? Math.ceil(((1 - b.tokens) * MINUTE) / b.policy.perMinute) : 0;
}

export type RateMeter = 'minute' | 'second' | 'burst';

/** One meter's share of `waitMs` (kept apart so the hot path stays as it is). */
function meterWaitMs(b: BucketState, now: number, meter: RateMeter): number {
  switch (meter) {
    case 'minute':
      return b.used >= b.policy.perMinute ? b.windowStart + MINUTE - now : 0;
    case 'second':
      return b.policy.perSecond !== undefined && b.usedThisSecond >= b.policy.perSecond ? b.secondStart + 1000 - now : 0;
    case 'burst':
      return burstWaitMs(b, now);
  }
}
