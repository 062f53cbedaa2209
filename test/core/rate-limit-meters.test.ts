import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { RateLimiter, WORKSPACE_LIMITS, type RatePolicy } from '../../src/core/rate-limit.ts';

/**
 * The rate limiter's meters one by one (src/core/rate-limit.ts; issue 28's
 * mutation testing): which meter refuses and for how long (the 429's reason),
 * the per-second cap, peek, exhaust, the control plane's snapshot, forgetting
 * buckets, a policy that changes, and buckets that follow a workspace's clock.
 * The common cases are in rate-limit.test.ts.
 */
const START = Date.UTC(2026, 0, 15, 9, 0, 0); // on a minute boundary
const setup = () => {
  const clock = new Clock('manual', START);
  return { clock, limiter: new RateLimiter(clock) };
};
const spec = (key: string, policy: RatePolicy) => [{ key, policy }];
const sandbox = spec('ws', WORKSPACE_LIMITS.sandbox);

describe('the meter that refuses (blocking)', () => {
  it('none while every meter allows, and none for a bucket never used', () => {
    const { limiter } = setup();
    expect(limiter.blocking([{ key: 'ws' }])).toBeNull();
    limiter.take(sandbox);
    expect(limiter.blocking([{ key: 'ws' }])).toBeNull();
  });

  it('burst: 5 within any one second, so the sixth waits until the first leaves it', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    expect(limiter.blocking([{ key: 'ws' }])).toEqual({
      key: 'ws',
      workspaceId: null,
      policy: WORKSPACE_LIMITS.sandbox,
      meter: 'burst',
      waitMs: 1000,
      atMs: START + 1000,
    });
    await clock.advance(450);
    expect(limiter.blocking([{ key: 'ws' }])).toMatchObject({ meter: 'burst', waitMs: 550, atMs: START + 1000 });
  });

  it('minute: the quota is used until the window ends', async () => {
    const { clock, limiter } = setup();
    const policy = { perMinute: 3, burst: 10 };
    for (let i = 0; i < 3; i++) expect(limiter.take(spec('k', policy)).allowed).toBe(true);
    await clock.advance(15_000);
    const refused = limiter.take(spec('k', policy));
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 45, reset: (START + 60_000) / 1000 });
    expect(limiter.blocking([{ key: 'k' }])).toEqual({ key: 'k', workspaceId: null, policy, meter: 'minute', waitMs: 45_000, atMs: START + 60_000 });
  });

  it("second: an organization key's rps holds until the next second", async () => {
    const { clock, limiter } = setup();
    const policy = { perMinute: 600, burst: 50, perSecond: 2 };
    expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
    expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
    await clock.advance(400);
    expect(limiter.take(spec('key:a', policy))).toMatchObject({ allowed: false, retryAfter: 1 });
    expect(limiter.blocking([{ key: 'key:a' }])).toMatchObject({ meter: 'second', waitMs: 600, atMs: START + 1_000 });
    await clock.advance(600);
    expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
    expect(limiter.blocking([{ key: 'key:a' }])).toBeNull();
  });

  it('without rps there is no per-second cap', () => {
    const { limiter } = setup();
    const policy = { perMinute: 6_000, burst: 100 };
    for (let i = 0; i < 60; i++) expect(limiter.take(spec('k', policy)).allowed).toBe(true);
  });

  it('across buckets and meters, the longest wait; a tie keeps the first', () => {
    const { limiter } = setup();
    const quota = { perMinute: 2, burst: 10 };
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    limiter.take(spec('q', quota));
    limiter.take(spec('q', quota));
    expect(limiter.blocking([{ key: 'ws' }, { key: 'q' }, { key: 'none' }])).toMatchObject({ key: 'q', meter: 'minute', waitMs: 60_000 });
    expect(limiter.blocking([{ key: 'q' }, { key: 'ws' }])).toMatchObject({ key: 'q', meter: 'minute' });
    limiter.take(spec('q2', quota));
    limiter.take(spec('q2', quota));
    expect(limiter.blocking([{ key: 'q2' }, { key: 'q' }])).toMatchObject({ key: 'q2' });
    expect(limiter.blocking([{ key: 'q' }, { key: 'q2' }])).toMatchObject({ key: 'q' });
  });

  it('an exhausted bucket is refused by its minute quota, the longer wait', () => {
    const { limiter } = setup();
    limiter.exhaust('ws', WORKSPACE_LIMITS.sandbox);
    expect(limiter.take(sandbox)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 60 });
    expect(limiter.blocking([{ key: 'ws' }])).toMatchObject({ meter: 'minute', waitMs: 60_000 });
  });
});

describe('what the headers report', () => {
  it('the tightest bucket: its limit, remaining and reset', () => {
    const { limiter } = setup();
    const wide = { perMinute: 50, burst: 50 };
    const narrow = { perMinute: 10, burst: 50 };
    const decision = limiter.take([
      { key: 'wide', policy: wide },
      { key: 'narrow', policy: narrow },
    ]);
    expect(decision).toEqual({ allowed: true, limit: 10, remaining: 9, reset: (START + 60_000) / 1000, retryAfter: 0 });
    expect(
      limiter.take([
        { key: 'narrow', policy: narrow },
        { key: 'wide', policy: wide },
      ]),
    ).toMatchObject({ limit: 10, remaining: 8 });
  });

  it('peek consumes nothing and creates no bucket', async () => {
    const { clock, limiter } = setup();
    await clock.advance(30_500);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toEqual({ allowed: true, limit: 100, remaining: 100, reset: (START + 60_000) / 1000, retryAfter: 0 });
    expect(limiter.snapshot()).toEqual([]);
    limiter.take(sandbox);
    limiter.take(sandbox);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 98 });
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 98 });
    await clock.advance(30_000);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 100, reset: (START + 120_000) / 1000 });
  });
});

describe('the buckets as the control plane sees them', () => {
  it('snapshot: each bucket refreshed to now, as a copy', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    const [before] = limiter.snapshot();
    expect(before).toMatchObject({ key: 'ws', workspaceId: null, used: 5, tokens: 0, windowStart: START });
    before!.used = 99;
    await clock.advance(61_000);
    const [after] = limiter.snapshot();
    expect(after).toMatchObject({ key: 'ws', used: 0, tokens: 5, windowStart: START + 60_000, refilledAt: START + 61_000 });
  });

  it("a bucket made in a workspace's context follows that workspace's clock", async () => {
    const { clock, limiter } = setup();
    await clock.advanceWorkspace('ws_a', 3_600_000);
    clock.run('ws_a', () => {
      for (let i = 0; i < 5; i++) limiter.take(spec('workspace:ws_a', WORKSPACE_LIMITS.sandbox));
    });
    const [bucket] = limiter.snapshot();
    expect(bucket).toMatchObject({ workspaceId: 'ws_a', windowStart: START + 3_600_000, tokens: 0, used: 5 });
    // read from the global clock, an hour behind, the bucket's tokens do not drain for the time in between
    expect(limiter.take(spec('workspace:ws_a', WORKSPACE_LIMITS.sandbox))).toMatchObject({ allowed: false, retryAfter: 1 });
  });

  it('forget drops the named buckets only; clear drops them all', () => {
    const { limiter } = setup();
    limiter.exhaust('a', WORKSPACE_LIMITS.sandbox);
    limiter.exhaust('b', WORKSPACE_LIMITS.sandbox);
    limiter.forget(['a']);
    expect(limiter.snapshot().map((b) => b.key)).toEqual(['b']);
    expect(limiter.take(spec('a', WORKSPACE_LIMITS.sandbox)).allowed).toBe(true);
    expect(limiter.take(spec('b', WORKSPACE_LIMITS.sandbox)).allowed).toBe(false);
    limiter.clear();
    expect(limiter.snapshot()).toEqual([]);
    expect(limiter.take(spec('b', WORKSPACE_LIMITS.sandbox)).allowed).toBe(true);
  });
});

describe('a policy that changes (a workspace switched between live and sandbox)', () => {
  it('takes effect at once: the second already holds more than the new burst', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 10; i++) limiter.take(spec('w', WORKSPACE_LIMITS.live));
    // 10 in this second; sandbox allows 5 within any one second
    expect(limiter.take(spec('w', WORKSPACE_LIMITS.sandbox))).toMatchObject({ allowed: false, limit: 100, remaining: 90 });
    await clock.advance(1_000);
    for (let i = 0; i < 5; i++) expect(limiter.take(spec('w', WORKSPACE_LIMITS.sandbox)).allowed).toBe(true);
    expect(limiter.take(spec('w', WORKSPACE_LIMITS.sandbox)).allowed).toBe(false);
  });

  it('a change of rps alone counts as a change', () => {
    const { limiter } = setup();
    const open = { perMinute: 600, burst: 50 };
    limiter.take(spec('k', open));
    limiter.take(spec('k', open));
    expect(limiter.take(spec('k', { ...open, perSecond: 2 })).allowed).toBe(false);
  });

  it('a change of the minute quota alone counts as a change', () => {
    const { limiter } = setup();
    limiter.take(spec('k', { perMinute: 600, burst: 50 }));
    limiter.take(spec('k', { perMinute: 600, burst: 50 }));
    expect(limiter.take(spec('k', { perMinute: 2, burst: 50 }))).toMatchObject({ allowed: false, limit: 2 });
  });
});

describe('edges the mutation run found (issue 28)', () => {
  it('between buckets left with as many requests, the headers follow the first', () => {
    const { limiter } = setup();
    const ten = { perMinute: 10, burst: 100 };
    const six = { perMinute: 6, burst: 100 };
    for (let i = 0; i < 4; i++) limiter.take(spec('a', ten));
    // after this take both have 5 left
    expect(
      limiter.take([
        { key: 'a', policy: ten },
        { key: 'b', policy: six },
      ]),
    ).toMatchObject({ limit: 10, remaining: 5 });
  });

  it('Retry-After is the longest wait of the buckets, not the shortest', () => {
    const { limiter } = setup();
    const quota = { perMinute: 1, burst: 10 };
    limiter.take(spec('q', quota));
    expect(
      limiter.take([
        { key: 'q', policy: quota },
        { key: 'open', policy: WORKSPACE_LIMITS.live },
      ]),
    ).toMatchObject({ allowed: false, retryAfter: 60 });
  });

  it('a slow refill: Retry-After is the time until a whole token, from a fractional one', async () => {
    const { clock, limiter } = setup();
    const slow = { perMinute: 10, burst: 1 }; // one token per 6 s
    expect(limiter.take(spec('s', slow)).allowed).toBe(true);
    expect(limiter.take(spec('s', slow))).toMatchObject({ allowed: false, retryAfter: 6 });
    await clock.advance(3_000); // half a token
    expect(limiter.take(spec('s', slow))).toMatchObject({ allowed: false, retryAfter: 3 });
    expect(limiter.blocking([{ key: 's' }])).toMatchObject({ meter: 'burst', waitMs: 3_000 });
  });

  it('a change of the burst alone counts as a change', () => {
    const { limiter } = setup();
    const wide = { perMinute: 600, burst: 50 };
    for (let i = 0; i < 10; i++) limiter.take(spec('k', wide));
    // 40 tokens left; a burst of 5 leaves 5
    for (let i = 0; i < 5; i++) expect(limiter.take(spec('k', { perMinute: 600, burst: 5 })).allowed).toBe(true);
    expect(limiter.take(spec('k', { perMinute: 600, burst: 5 })).allowed).toBe(false);
  });

  it('the per-second cap starts again every second, not only the first', async () => {
    const { clock, limiter } = setup();
    const policy = { perMinute: 600, burst: 50, perSecond: 2 };
    for (const second of [0, 1, 2]) {
      if (second > 0) await clock.advance(1_000);
      expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
      expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
      expect(limiter.take(spec('key:a', policy)), `second ${second}`).toMatchObject({ allowed: false, retryAfter: 1 });
    }
  });
});
