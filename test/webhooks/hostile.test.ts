/**
 * Hostile receivers are contained (docs/webhooks.md,
 * "Receiver limits"). Real sockets, a short attempt deadline (the option
 * webhookTimeoutMs) so the suite stays fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitDomainEvent } from '../../src/core/events.ts';
import { STORED_EXCERPT_BYTES } from '../../src/webhooks/attempt-record.ts';
import { BODY_EXCERPT_BYTES } from '../../src/webhooks/delivery.ts';
import { MAX_IN_FLIGHT_PER_SUBSCRIPTION } from '../../src/webhooks/subscription-slots.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { deliveriesOf, emit, subscribe } from './helpers.ts';
import { startHostileReceiver, type Behaviour } from './hostile-receiver.ts';
import { startReceiver } from './receiver.ts';

const TIMEOUT_MS = 600;
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false, webhookTimeoutMs: TIMEOUT_MS });
});
afterAll(() => t.sandbox.stop());

describe('hostile webhook receivers', () => {
  it('the default attempt deadline is 10 s and the body cap 64 KiB', async () => {
    const plain = await testSandbox();
    expect(plain.sandbox.options.webhookTimeoutMs).toBe(10_000);
    await plain.sandbox.stop();
    expect(BODY_EXCERPT_BYTES).toBe(64 * 1024);
  });

  const cases: [Behaviour, string][] = [
    ['hang', 'timeout'],
    ['drip', 'timeout'],
    ['huge', 'body too large'],
    ['reset', 'connection reset'],
  ];
  for (const [behaviour, reason] of cases) {
    it(`a receiver that does "${behaviour}" is cut off: a failed attempt with reason "${reason}", retried`, async () => {
      const receiver = await startHostileReceiver(behaviour);
      try {
        const sub = await subscribe(t, { url: receiver.url, events: ['booking.created'] });
        await emit(t, 'booking.created');
        const [delivery] = deliveriesOf(t, sub.id);
        expect(delivery).toMatchObject({ status: 'pending', retries: 1 });
        expect(delivery!.attempts[0]!.error).toBe(reason);
        // cut off at the deadline, not when the receiver is done: "hang" and "drip" never finish by themselves, and
        // "huge" is checked below by the bytes it managed to send. No assertion on durations.
        const sub2 = (await t.request('GET', `/v1/webhooks/subscriptions/${sub.id}`)).json().data;
        expect(sub2.failure_count).toBe(1);
        if (behaviour === 'huge') {
          expect(delivery!.attempts[0]!.response).toMatchObject({ status: 200 });
          // 64 KiB are read, the first 512 bytes kept
          expect(delivery!.attempts[0]!.response!.bodyExcerpt).toHaveLength(STORED_EXCERPT_BYTES);
          expect(receiver.bytesSent).toBeLessThan(50 * 1024 * 1024); // the rest was never read
        }
        if (behaviour === 'drip') expect(delivery!.attempts[0]!.response).toMatchObject({ status: 200 });
        await t.request('DELETE', `/v1/webhooks/subscriptions/${sub.id}`);
      } finally {
        await receiver.close();
      }
    });
  }

  it('a hanging receiver delays neither another subscription nor the API, and gets at most the in-flight cap at once', async () => {
    // a long deadline: the first attempts are all still hanging when the checks run
    const t = await testSandbox({ enforceRateLimits: false, webhookTimeoutMs: 30_000 });
    const slow = await startHostileReceiver('hang');
    const good = await startReceiver();
    try {
      const slowSub = await subscribe(t, { url: slow.url, events: ['product.*'] });
      const goodSub = await subscribe(t, { url: good.url, events: ['product.*'] });
      const events = 2 * MAX_IN_FLIGHT_PER_SUBSCRIPTION + 1;
      let goodDone = 0;
      let allGoodDone!: () => void;
      const goodFinished = new Promise<void>((resolve) => (allGoodDone = resolve));
      const off = t.sandbox.events.on('delivery', (d: { subscriptionId: string; status: string }) => {
        if (d.subscriptionId === goodSub.id && d.status === 'succeeded' && ++goodDone === events) allGoodDone();
      });
      for (let i = 0; i < events; i++) emitDomainEvent(t.sandbox.events, t.sandbox.clock, t.liveWorkspaceId, 'product.updated', { id: `prod_${i}` });
      await slow.arrivedAt(MAX_IN_FLIGHT_PER_SUBSCRIPTION);
      // while the slow receiver holds its slots, the good one gets everything and the API answers
      await goodFinished;
      off();
      expect(good.received).toHaveLength(events);
      expect((await t.request('GET', '/v1/products?limit=1')).statusCode).toBe(200);
      expect(slow.arrived).toBe(MAX_IN_FLIGHT_PER_SUBSCRIPTION);
      expect(slow.maxOpen).toBe(MAX_IN_FLIGHT_PER_SUBSCRIPTION);
      expect(deliveriesOf(t, slowSub.id).filter((d) => d.status === 'pending' && d.attempts.length === 0)).toHaveLength(events);
    } finally {
      await t.sandbox.stop(); // aborts the hanging attempts; they stay pending for the next start
      await slow.close();
      await good.close();
    }
  });
});
