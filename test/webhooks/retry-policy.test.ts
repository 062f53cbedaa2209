import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../src/core/random.ts';
import {
  classify,
  honoursRetryAfter,
  JITTER,
  MAX_RETRY_AFTER_MS,
  maxAttempts,
  nextRetryAfter,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
  retryDelayMs,
} from '../../src/webhooks/retry-policy.ts';

/**
 * The retry policy's edges (issue 28: each mutant of src/webhooks/retry-policy.ts
 * is killed here or listed as equivalent in docs/testing.md). The schedule and
 * the common cases are in policy.test.ts.
 */
describe('retry delay', () => {
  const seed = fc.string({ minLength: 1, maxLength: 12 });

  it('the jitter is the seeded draw u mapped onto [0.9, 1.1): a draw of u gives base × (1 + (2u − 1) × 0.1)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), seed, (retry, s) => {
        const u = new SeededRandom(`${s}:${retry}`).next();
        const base = RETRY_SCHEDULE_MS[retry - 1]!;
        expect(retryDelayMs(retry, s)).toBe(Math.round(base * (1 + (2 * u - 1) * JITTER)));
      }),
    );
  });

  it('spreads retries on both sides of the schedule, never more than 10 % away', () => {
    const delays = Array.from({ length: 200 }, (_, i) => retryDelayMs(2, `dlv_${i}`));
    const base = RETRY_SCHEDULE_MS[1]!;
    expect(delays.some((d) => d > base * 1.05)).toBe(true);
    expect(delays.some((d) => d < base * 0.95)).toBe(true);
    expect(delays.every((d) => d >= base * 0.9 && d <= base * 1.1)).toBe(true);
  });

  it('a retry number outside 1..10 takes the nearest entry of the schedule', () => {
    const near = (retry: number, entry: number, s: string) => {
      const u = new SeededRandom(`${s}:${retry}`).next();
      return Math.round(RETRY_SCHEDULE_MS[entry - 1]! * (1 + (2 * u - 1) * JITTER));
    };
    expect(retryDelayMs(0, 'dlv_a')).toBe(near(0, 1, 'dlv_a'));
    expect(retryDelayMs(-3, 'dlv_a')).toBe(near(-3, 1, 'dlv_a'));
    expect(retryDelayMs(11, 'dlv_a')).toBe(near(11, 10, 'dlv_a'));
    expect(retryDelayMs(50, 'dlv_a')).toBe(near(50, 10, 'dlv_a'));
  });
});

describe('Retry-After', () => {
  const date = 'Wed, 21 Oct 2026 07:28:00 GMT';

  it('no header, or an empty one, is no delay', () => {
    expect(parseRetryAfter(undefined, date)).toBeNull();
    expect(parseRetryAfter('', date)).toBeNull();
    expect(parseRetryAfter('   ', date)).toBeNull();
  });

  it('delta seconds may carry surrounding whitespace', () => {
    expect(parseRetryAfter(' 120 ', undefined)).toBe(120_000);
    expect(parseRetryAfter('0', undefined)).toBe(0);
    expect(parseRetryAfter(String(24 * 3600), undefined)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(String(24 * 3600 + 1), undefined)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('digits with anything before or after them are not delta seconds', () => {
    for (const value of ['a120', '120s', '-5', '1.5']) expect(parseRetryAfter(value, undefined)).toBeNull();
  });

  it('an HTTP date needs the response Date to be measured against', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:30:00 GMT', undefined)).toBeNull();
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:30:00 GMT', 'not a date')).toBeNull();
    expect(parseRetryAfter('not a date', date)).toBeNull();
  });

  it('an HTTP date in the past is no delay; one further than a day is capped', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:00:00 GMT', date)).toBe(0);
    expect(parseRetryAfter('Fri, 23 Oct 2026 07:28:00 GMT', date)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('only 429 and 503 are honoured', () => {
    expect(honoursRetryAfter(429)).toBe(true);
    expect(honoursRetryAfter(503)).toBe(true);
    for (const status of [200, 410, 500, 502, 504, 428, null]) expect(honoursRetryAfter(status)).toBe(false);
  });
});

describe('attempt outcome', () => {
  it('the 2xx range is exactly 200 to 299', () => {
    for (const status of [100, 101, 199, 300, 304, 0]) expect(classify(status)).toBe('retryable');
    for (const status of [200, 201, 299]) expect(classify(status)).toBe('succeeded');
  });
});

describe('attempts in all', () => {
  it('the first attempt and max_retries retries; one once the subscription is gone', () => {
    expect(maxAttempts({ max_retries: 0 })).toBe(1);
    expect(maxAttempts({ max_retries: 3 })).toBe(4);
    expect(maxAttempts({ max_retries: 10 })).toBe(11);
    expect(maxAttempts(undefined)).toBe(1);
  });
});

describe('next retry of an attempt (issue 26)', () => {
  const at = (n: number) => `2026-01-01T00:0${n}:00.000Z`;
  const attempt = (number: number, trigger = number === 1 ? 'event' : 'retry') => ({ number, trigger, at: at(number) });

  it("an earlier attempt's next retry is the automatic retry that followed it", () => {
    const delivery = { status: 'pending', nextAttemptAt: at(9), attempts: [attempt(1), attempt(2), attempt(3)] };
    expect(nextRetryAfter(delivery, 1)).toBe(at(2));
    expect(nextRetryAfter(delivery, 2)).toBe(at(3));
    expect(nextRetryAfter(delivery, 3)).toBe(at(9));
  });

  it('a manual replay is not the retry that followed; the next automatic one is', () => {
    const delivery = { status: 'pending', nextAttemptAt: at(9), attempts: [attempt(1), attempt(2, 'replay'), attempt(3)] };
    expect(nextRetryAfter(delivery, 1)).toBe(at(3));
  });

  it('the latest attempt of a delivery that is no longer pending has no next retry', () => {
    for (const status of ['succeeded', 'failed', 'gone']) {
      expect(nextRetryAfter({ status, nextAttemptAt: at(9), attempts: [attempt(1), attempt(2)] }, 2)).toBeNull();
    }
  });

  it('an earlier attempt followed only by a replay has none either', () => {
    const delivery = { status: 'pending', nextAttemptAt: at(9), attempts: [attempt(1), attempt(2, 'replay')] };
    expect(nextRetryAfter(delivery, 1)).toBeNull();
    expect(nextRetryAfter(delivery, 2)).toBe(at(9));
  });

  it('attempts in any order: the latest is the one with the highest number', () => {
    const delivery = { status: 'pending', nextAttemptAt: at(9), attempts: [attempt(3, 'replay'), attempt(1), attempt(2, 'replay')] };
    expect(nextRetryAfter(delivery, 2)).toBeNull();
    expect(nextRetryAfter(delivery, 3)).toBe(at(9));
  });
});
