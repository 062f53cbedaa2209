import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { RateLimiter, WORKSPACE_LIMITS } from '../../src/core/rate-limit.ts';

const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const setup = () => {
  const clock = new Clock('manual', START);
  return { clock, limiter: new RateLimiter(clock) };
};
const sandbox = [{ key: 'ws', policy: WORKSPACE_LIMITS.sandbox }];

describe('rate limiter (API description, Limits)', () => {
  it('sandbox: a burst of 5 passes, the 6th in the same instant is refused with retry_after 1', () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
    const refused = limiter.take(sandbox);
    expect(refused).toMatchObject({ allowed: false, limit: 100, remaining: 95, retryAfter: 1 });
  });

  it('the burst is 5 within any one second (issue 39): the sixth waits until the first five leave the second', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    await clock.advance(999);
    expect(limiter.take(sandbox).allowed).toBe(false);
    await clock.advance(1);
    for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
    expect(limiter.take(sandbox).allowed).toBe(false);
  });

  it('live: never more than 30 within one second, however they are spread', async () => {
    const { clock, limiter } = setup();
    const live = [{ key: 'live', policy: WORKSPACE_LIMITS.live }];
    const passedAt: number[] = [];
    for (let t = 0; t < 3_000; t += 20) {
      for (let i = 0; i < 3; i++) if (limiter.take(live).allowed) passedAt.push(t);
      await clock.advance(20);
    }
    for (const start of passedAt) expect(passedAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(30);
    expect(passedAt.length).toBe(90); // 30 in each of the three seconds: no less than described either
  });

  it('retry_after rounds a partial second up: told to wait 2 s when 1.2 s remain, a client does not retry into another 429 (issue 28)', async () => {
    const { clock, limiter } = setup();
    for (let s = 0; s < 20; s++) {
      for (let i = 0; i < 5; i++) expect(limiter.take(sandbox).allowed).toBe(true);
      await clock.advance(1_000);
    }
    await clock.advance(38_800); // 58.8 s into the minute, its 100 requests used: 1.2 s to wait
    const refused = limiter.take(sandbox);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfter: 2 });
    await clock.advance(1_000); // had it said 1 s: still refused
    expect(limiter.take(sandbox).allowed).toBe(false);
    await clock.advance(1_000);
    expect(limiter.take(sandbox).allowed).toBe(true);
  });

  it('a refused request consumes nothing', () => {
    const { limiter } = setup();
    for (let i = 0; i < 5; i++) limiter.take(sandbox);
    for (let i = 0; i < 10; i++) limiter.take(sandbox);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox).remaining).toBe(95);
  });

  it('the minute quota of 100 stops requests until the window resets, and says when', async () => {
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
    // 60 s elapsed: a new window started at START+60s, 100 more allowed
    expect(l2.take(sandbox).allowed).toBe(true);
  });

  it('reports the end of the fixed minute window as X-RateLimit-Reset and waits until it', async () => {
    const { clock, limiter } = setup();
    await clock.advance(10_000);
    const quota = [{ key: 'q', policy: { perMinute: 3, burst: 10 } }];
    for (let i = 0; i < 3; i++) limiter.take(quota);
    const refused = limiter.take(quota);
    expect(refused.allowed).toBe(false);
    expect(refused.reset).toBe((START + 60_000) / 1000);
    expect(refused.retryAfter).toBe(50);
  });

  it('live: burst 30, quota 3000', () => {
    const { limiter } = setup();
    const live = [{ key: 'live', policy: WORKSPACE_LIMITS.live }];
    for (let i = 0; i < 30; i++) expect(limiter.take(live).allowed).toBe(true);
    expect(limiter.take(live)).toMatchObject({ allowed: false, limit: 3000, remaining: 2970 });
  });

  it('several buckets: all must allow, and all consume only then; headers follow the tightest', () => {
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

  it('report-only mode lets requests through but still counts them', () => {
    const { limiter } = setup();
    for (let i = 0; i < 8; i++) expect(limiter.take(sandbox, false).allowed).toBe(true);
    expect(limiter.peek('ws', WORKSPACE_LIMITS.sandbox).remaining).toBe(92);
  });

  it('exhaust empties a bucket', () => {
    const { limiter } = setup();
    limiter.exhaust('ws', WORKSPACE_LIMITS.sandbox);
    expect(limiter.take(sandbox)).toMatchObject({ allowed: false, remaining: 0 });
  });
});
