import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { RateLimiter, WORKSPACE_LIMITS, type RatePolicy } from '../../src/core/rate-limit.ts';

/**
 * The rate limiter (src/core/rate-limit.ts) on a manual clock: the workspace
 * limits of the API description ("Limits"), each meter (burst, minute, second)
 * and which one refuses for how long, the headers' figures, the buckets the
 * control plane sees, and a policy that changes. Over HTTP: test/http/rate-limit.test.ts.
 */
const START = Date.UTC(2026, 0, 15, 9, 0, 0); // 09:00:00 UTC, on a minute boundary
// X-RateLimit-Reset is in Unix seconds; by hand, 2026-01-15 09:01:00 UTC is 1,768,467,660 (START is 1,768,467,600,000 ms)
const RESET_AT_09_01 = 1_768_467_660;
const RESET_AT_09_02 = 1_768_467_720;

const setup = () => {
  const clock = new Clock('manual', START);
  return { clock, limiter: new RateLimiter(clock) };
};
const spec = (key: string, policy: RatePolicy) => [{ key, policy }];
const sandbox = spec('ws', WORKSPACE_LIMITS.sandbox);
const live = spec('live', WORKSPACE_LIMITS.live);

describe('the workspace limits (API description, Limits)', () => {
  it('sandbox: a burst of 5 passes, the 6th in the same instant is refused with retry_after 1', () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
    expect(limiter.take(sandbox)).toMatchObject({ allowed: false, limit: 100, remaining: 95, retryAfter: 1 });
  });

  it('sandbox: "burst 5 requests per second" is 5 within any one second: the sixth waits until the first five leave the second', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    await clock.advance(999);
    expect(limiter.take(sandbox).allowed).toBe(false);
    await clock.advance(1);
    for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
    expect(limiter.take(sandbox).allowed).toBe(false);
  });

  it('live: burst 30, quota 3000', () => {
    const { limiter } = setup();
    for (let i = 0; i < 30; i++) expect(limiter.take(live).allowed).toBe(true);
    expect(limiter.take(live)).toMatchObject({ allowed: false, limit: 3000, remaining: 2970 });
  });

  it('live: never more than 30 within one second, however they are spread', async () => {
    const { clock, limiter } = setup();
    const passedAt: number[] = [];
    for (let t = 0; t < 3_000; t += 20) {
      for (let i = 0; i < 3; i++) if (limiter.take(live).allowed) passedAt.push(t);
      await clock.advance(20);
    }
    for (const start of passedAt) expect(passedAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(30);
    expect(passedAt.length).toBe(90); // 30 in each of the three seconds: no less than described either
  });

  it('the minute quota of 100 stops requests until the window resets', async () => {
    const { clock, limiter } = setup();
    let passed = 0;
    for (let i = 0; i < 200; i++) {
      if (limiter.take(sandbox).allowed) passed++;
      await clock.advance(250);
    }
    // attempts every 250 ms for 49.75 s: 4 a second is within the burst, so the minute quota stops them at 100
    expect(passed).toBe(100);
    const { clock: c2, limiter: l2 } = setup();
    for (let i = 0; i < 100; i++) {
      expect(l2.take(sandbox).allowed).toBe(true);
      await c2.advance(600);
    }
    // 60 s elapsed: a new window started at 09:01:00, 100 more allowed
    expect(l2.take(sandbox).allowed).toBe(true);
  });

  it('a refused request consumes nothing', () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    for (let i = 0; i < 10; i++) limiter.take(sandbox);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox).remaining).toBe(95);
  });

  it('report-only mode lets requests through but still counts them', () => {
    const { limiter } = setup();
    for (let i = 0; i < 8; i++) expect(limiter.take(sandbox, false).allowed).toBe(true);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox).remaining).toBe(92);
  });
});

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
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 45, reset: RESET_AT_09_01 });
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

  it('second: the cap starts again every second, not only the first', async () => {
    const { clock, limiter } = setup();
    const policy = { perMinute: 600, burst: 50, perSecond: 2 };
    for (const second of [0, 1, 2]) {
      if (second > 0) await clock.advance(1_000);
      expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
      expect(limiter.take(spec('key:a', policy)).allowed).toBe(true);
      expect(limiter.take(spec('key:a', policy)), `second ${second}`).toMatchObject({ allowed: false, retryAfter: 1 });
    }
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

describe('Retry-After (retry_after)', () => {
  it('rounds a partial second up: told to wait 2 s when 1.2 s remain, a client does not retry into another 429', async () => {
    const { clock, limiter } = setup();
    for (let s = 0; s < 20; s++) {
      for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
      await clock.advance(1_000);
    }
    await clock.advance(38_800); // 58.8 s into the minute, its 100 requests used: 1.2 s to wait
    expect(limiter.take(sandbox)).toMatchObject({ allowed: false, remaining: 0, retryAfter: 2 });
    await clock.advance(1_000); // had it said 1 s: still refused
    expect(limiter.take(sandbox).allowed).toBe(false);
    await clock.advance(1_000);
    expect(limiter.take(sandbox).allowed).toBe(true);
  });

  it('a minute quota used at 09:00:10 waits the 50 s left of the window', async () => {
    const { clock, limiter } = setup();
    await clock.advance(10_000);
    const quota = spec('q', { perMinute: 3, burst: 10 });
    for (let i = 0; i < 3; i++) limiter.take(quota);
    expect(limiter.take(quota)).toMatchObject({ allowed: false, reset: RESET_AT_09_01, retryAfter: 50 });
  });

  it('is the longest wait of the buckets, not the shortest', () => {
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

  it('a slow refill: the time until a whole token, from a fractional one', async () => {
    const { clock, limiter } = setup();
    const slow = { perMinute: 10, burst: 1 }; // one token per 6 s
    expect(limiter.take(spec('s', slow)).allowed).toBe(true);
    expect(limiter.take(spec('s', slow))).toMatchObject({ allowed: false, retryAfter: 6 });
    await clock.advance(3_000); // half a token
    expect(limiter.take(spec('s', slow))).toMatchObject({ allowed: false, retryAfter: 3 });
    expect(limiter.blocking([{ key: 's' }])).toMatchObject({ meter: 'burst', waitMs: 3_000 });
  });
});

describe('what the headers report (X-RateLimit-Limit, -Remaining, -Reset)', () => {
  it('several buckets: all must allow, and all consume only then; the headers follow the tightest', () => {
    const { limiter } = setup();
    const both = [
      { key: 'ws2', policy: WORKSPACE_LIMITS.live },
      { key: 'org', policy: { perMinute: 10, burst: 2, perSecond: 2 } },
    ];
    expect(limiter.take(both)).toMatchObject({ allowed: true, limit: 10, remaining: 9 });
    expect(limiter.take(both).allowed).toBe(true);
    expect(limiter.take(both).allowed).toBe(false);
    expect(limiter.peek('ws2', WORKSPACE_LIMITS.live).remaining).toBe(2998);
  });

  it('the tightest bucket whichever comes first: its limit, remaining and reset', () => {
    const { limiter } = setup();
    const wide = { perMinute: 50, burst: 50 };
    const narrow = { perMinute: 10, burst: 50 };
    const decision = limiter.take([
      { key: 'wide', policy: wide },
      { key: 'narrow', policy: narrow },
    ]);
    expect(decision).toEqual({ allowed: true, limit: 10, remaining: 9, reset: RESET_AT_09_01, retryAfter: 0 });
    expect(
      limiter.take([
        { key: 'narrow', policy: narrow },
        { key: 'wide', policy: wide },
      ]),
    ).toMatchObject({ limit: 10, remaining: 8 });
  });

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

  it('peek consumes nothing and creates no bucket', async () => {
    const { clock, limiter } = setup();
    await clock.advance(30_500);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toEqual({ allowed: true, limit: 100, remaining: 100, reset: RESET_AT_09_01, retryAfter: 0 });
    expect(limiter.snapshot()).toEqual([]);
    limiter.take(sandbox);
    limiter.take(sandbox);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 98 });
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 98 });
    await clock.advance(30_000); // 09:01:00.5: the next window
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox)).toMatchObject({ remaining: 100, reset: RESET_AT_09_02 });
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

  it('a change of the burst alone counts as a change', () => {
    const { limiter } = setup();
    const wide = { perMinute: 600, burst: 50 };
    for (let i = 0; i < 10; i++) limiter.take(spec('k', wide));
    // 40 tokens left; a burst of 5 leaves 5
    for (let i = 0; i < 5; i++) expect(limiter.take(spec('k', { perMinute: 600, burst: 5 })).allowed).toBe(true);
    expect(limiter.take(spec('k', { perMinute: 600, burst: 5 })).allowed).toBe(false);
  });
});
