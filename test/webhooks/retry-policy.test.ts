import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptJson, attemptLine } from '../../src/cli/listen.ts';
import { ControlClient, type DeliverySummary } from '../../src/control/client.ts';
import { SeededRandom } from '../../src/core/random.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import {
  classify,
  honoursRetryAfter,
  MAX_RETRY_AFTER_MS,
  maxAttempts,
  nextRetryAfter,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
  retryDelayMs,
} from '../../src/webhooks/retry-policy.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * The webhook retry policy (src/webhooks/retry-policy.ts; the API description leaves the
 * schedule unshown, the sandbox follows the Standard Webhooks reference schedule, docs/webhooks.md):
 * the delay before each retry and its jitter, Retry-After, which answers count as delivered, how
 * many attempts in all, and the next retry of each attempt as `sandbox listen` prints it. The
 * retries of a real delivery on the sandbox clock: delivery.test.ts.
 */
describe('the delay before a retry', () => {
  it('follows the documented schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, 24 h', () => {
    expect(RETRY_SCHEDULE_MS.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400, 86400]);
    // each retry of one delivery within 10 % of its entry
    RETRY_SCHEDULE_MS.forEach((base, i) => expect(Math.abs(retryDelayMs(i + 1, 'dlv_a') - base)).toBeLessThanOrEqual(base * 0.1));
  });

  /**
   * Worked examples of the jitter: the delay is the schedule's entry times 1 + (2u - 1) x 0.1,
   * rounded to the millisecond, where u is the first draw of SeededRandom("<delivery id>:<retry>")
   * (the generator has its own test, test/core/random.test.ts). Each u is pinned here beside the
   * delay worked out from it by hand.
   */
  it.each([
    // retry 1: 5000 x (1 + (2 x 0.268988 - 1) x 0.1) = 5000 x 0.953798 = 4768.99
    { retry: 1, seed: 'dlv_a', u: 0.268988, delay: 4769 },
    // retry 2, above its entry: 300000 x (1 + (2 x 0.686357 - 1) x 0.1) = 300000 x 1.037271 = 311181.4
    { retry: 2, seed: 'dlv_a', u: 0.686357, delay: 311_181 },
    // a retry number below 1 takes the first entry: 5000 x (1 + (2 x 0.104382 - 1) x 0.1) = 5000 x 0.920876 = 4604.4
    { retry: 0, seed: 'dlv_a', u: 0.104382, delay: 4604 },
    // above 10, the last entry: 86400000 x (1 + (2 x 0.061922 - 1) x 0.1) = 86400000 x 0.912384 = 78830011
    { retry: 11, seed: 'dlv_a', u: 0.061922, delay: 78_830_011 },
    // another delivery, another draw: 1800000 x (1 + (2 x 0.062282 - 1) x 0.1) = 1800000 x 0.912456 = 1642421.6
    { retry: 3, seed: 'dlv_b', u: 0.062282, delay: 1_642_422 },
  ])('retry $retry of $seed: u = $u, so $delay ms', ({ retry, seed, u, delay }) => {
    expect(new SeededRandom(`${seed}:${retry}`).next()).toBeCloseTo(u, 6);
    expect(retryDelayMs(retry, seed)).toBe(delay);
    expect(retryDelayMs(retry, seed)).toBe(delay); // the same delivery retries at the same moments in every run
  });

  it('scales the schedule down (webhookRetryScale): retry 4 of dlv_a, u = 0.155684, 7200000 x 0.01 x 0.931137 = 67041.9', () => {
    expect(retryDelayMs(4, 'dlv_a')).toBe(6_704_185);
    expect(retryDelayMs(4, 'dlv_a', 0.01)).toBe(67_042);
  });

  it('spreads retries on both sides of the schedule, never more than 10 % away', () => {
    const delays = Array.from({ length: 200 }, (_, i) => retryDelayMs(2, `dlv_${i}`));
    // 5 min: 270 s to 330 s, and beyond 5 % (285 s and 315 s) on both sides
    expect(delays.some((d) => d > 315_000)).toBe(true);
    expect(delays.some((d) => d < 285_000)).toBe(true);
    expect(delays.every((d) => d >= 270_000 && d <= 330_000)).toBe(true);
  });
});

describe('Retry-After', () => {
  const date = 'Wed, 21 Oct 2026 07:28:00 GMT';

  it('delta seconds, or an HTTP date measured against the response Date', () => {
    expect(parseRetryAfter('120', undefined)).toBe(120_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:30:00 GMT', date)).toBe(120_000);
    expect(parseRetryAfter('soon', undefined)).toBeNull();
  });

  it('no header, or an empty one, is no delay', () => {
    expect(parseRetryAfter(undefined, date)).toBeNull();
    expect(parseRetryAfter('', date)).toBeNull();
    expect(parseRetryAfter('   ', date)).toBeNull();
  });

  it('delta seconds may carry surrounding whitespace', () => {
    expect(parseRetryAfter(' 120 ', undefined)).toBe(120_000);
    expect(parseRetryAfter('0', undefined)).toBe(0);
  });

  it('is capped at a day', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(86_400_000);
    expect(parseRetryAfter('86400', undefined)).toBe(86_400_000);
    expect(parseRetryAfter('86401', undefined)).toBe(86_400_000);
    expect(parseRetryAfter('999999999', undefined)).toBe(86_400_000);
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
    expect(parseRetryAfter('Fri, 23 Oct 2026 07:28:00 GMT', date)).toBe(86_400_000);
  });

  it('only 429 and 503 are honoured', () => {
    expect(honoursRetryAfter(429)).toBe(true);
    expect(honoursRetryAfter(503)).toBe(true);
    for (const status of [200, 410, 500, 502, 504, 428, null]) expect(honoursRetryAfter(status)).toBe(false);
  });
});

describe('attempt outcome', () => {
  it('only 2xx is delivered; 410 is gone; 3xx, 4xx, 5xx and no response are retried', () => {
    expect([200, 204, 299].map(classify)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(classify(410)).toBe('gone');
    expect([301, 302, 400, 429, 500, 503, null].map(classify).every((o) => o === 'retryable')).toBe(true);
  });

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

describe('the next retry of an attempt', () => {
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

/**
 * A delivery record holds only its current nextAttemptAt. With a small --webhook-retry-scale,
 * `sandbox listen` reads attempts 1 and 2 in one poll: each line must give its own next retry,
 * not the delivery's current one. The delivery here is read back as listen reads it (GET
 * /__sandbox/deliveries) once both attempts ran, which is that poll.
 */
describe('sandbox listen: the next retry of each attempt', () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', enforceRateLimits: false });
    receiver = await startReceiver();
    receiver.respond({ status: 500, body: 'down' });
  });
  afterAll(async () => {
    await sandbox.stop();
    await receiver.close();
  });

  async function twoFailedAttempts(): Promise<DeliverySummary> {
    const client = new ControlClient({ url: sandbox.url });
    const workspaceId = sandbox.workspaces[0]!.id;
    const { subscription } = await client.ensureSubscription({ workspaceId, url: receiver.url, events: ['customer.created'], description: 'sandbox listen' });
    await client.emitEvent({ workspaceId, type: 'customer.created', data: { id: 'ppl_retry' } });
    await sandbox.context.webhooks.idle();
    await sandbox.clock.advance(60_000); // past the first retry (5 s), well before the second (5 min)
    await sandbox.context.webhooks.idle();
    const [delivery] = await client.deliveries({ subscriptionId: subscription.id });
    return delivery!;
  }

  it('gives attempt 1 the time attempt 2 ran, and attempt 2 the retry still to come', async () => {
    const d = await twoFailedAttempts();
    const [first, second] = d.attempts;
    expect(d.status).toBe('pending');
    expect(second!.trigger).toBe('retry');
    expect(d.nextAttemptAt! > second!.at).toBe(true);

    expect(attemptLine(d, first!)).toContain(`next retry ${second!.at}`);
    expect(attemptLine(d, second!)).toContain(`next retry ${d.nextAttemptAt}`);
    expect(attemptJson(d, first!).nextAttemptAt).toBe(second!.at);
    expect(attemptJson(d, second!).nextAttemptAt).toBe(d.nextAttemptAt);
  });
});
