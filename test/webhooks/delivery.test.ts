import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { USER_AGENT } from '../../src/webhooks/delivery.ts';
import { RETRY_SCHEDULE_MS } from '../../src/webhooks/retry-policy.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { advance, deliveriesOf, emit, getSubscription, subscribe, verify } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let t: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const H = 3_600_000;

describe('webhook delivery', () => {
  it('sends the signed body, custom headers and the sandbox user agent; the standard verifier accepts it', async () => {
    const sub = await subscribe(t, { url: receiver.url, events: ['booking.created'], headers: { 'X-Tenant': 'acme' } });
    const event = await emit(t, 'booking.created', { id: 'book_1', status: 'pending' });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(verify(sub.secret, got)).toEqual({
      id: event.id,
      type: 'booking.created',
      timestamp: event.createdAt,
      workspace_id: t.liveWorkspaceId,
      data: { id: 'book_1', status: 'pending' },
    });
    expect(got.headers).toMatchObject({ 'x-tenant': 'acme', 'user-agent': USER_AGENT, 'content-type': 'application/json' });
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const [delivery] = deliveriesOf(t, sub.id);
    expect(delivery).toMatchObject({ status: 'succeeded', eventType: 'booking.created', body: got.body });
    expect(got.headers['webhook-id']).toBe(delivery!.id);
    expect(delivery!.attempts[0]).toMatchObject({ number: 1, trigger: 'initial', response: { status: 200, bodyExcerpt: 'ok' }, error: null });
    expect((await getSubscription(t, sub.id)).last_delivery_at).toBe(t.sandbox.clock.iso());
  });

  it('matches wildcards and exact names, and nothing else', async () => {
    await subscribe(t, { url: receiver.url, events: ['booking.*', 'gallery.file.deleted'] });
    for (const type of ['booking.created', 'booking.cancelled', 'payment.succeeded', 'product.updated', 'gallery.file.deleted', 'customer.created'])
      await emit(t, type);
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['booking.created', 'booking.cancelled', 'gallery.file.deleted']);
  });

  it('delivers nothing to a paused subscription, and does not deliver what arrived while paused after resuming', async () => {
    const sub = await subscribe(t, { url: receiver.url, events: ['payment.*'] });
    await t.request('PATCH', `/v1/webhooks/subscriptions/${sub.id}`, { body: { active: false } });
    await emit(t, 'payment.succeeded');
    await advance(t, 48 * H);
    expect(receiver.received).toHaveLength(0);
    await t.request('PATCH', `/v1/webhooks/subscriptions/${sub.id}`, { body: { active: true } });
    await advance(t, 48 * H);
    expect(receiver.received).toHaveLength(0);
    await emit(t, 'payment.failed');
    expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['payment.failed']);
  });

  it('retries on the sandbox clock with a stable webhook-id, stops at max_retries and counts failures', async () => {
    receiver.respond({ status: 500, body: 'boom' });
    const sub = await subscribe(t, { url: receiver.url, events: ['customer.created'], maxRetries: 3 });
    await emit(t, 'customer.created');
    expect(receiver.received).toHaveLength(1);
    await advance(t, RETRY_SCHEDULE_MS[0]! * 0.85);
    expect(receiver.received).toHaveLength(1); // 5 s minus more than the jitter: not yet
    await advance(t, 72 * H);
    expect(receiver.received).toHaveLength(4); // the first attempt and 3 retries
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of receiver.received) verify(sub.secret, r);
    const [delivery] = deliveriesOf(t, sub.id);
    expect(delivery).toMatchObject({ status: 'failed', retries: 3, nextAttemptAt: null });
    expect(delivery!.attempts.map((a) => a.trigger)).toEqual(['initial', 'retry', 'retry', 'retry']);
    const gaps = delivery!.attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(delivery!.attempts[i]!.at));
    gaps.forEach((gap, i) => expect(Math.abs(gap - RETRY_SCHEDULE_MS[i]!)).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[i]! * 0.1));
    expect((await getSubscription(t, sub.id)).failure_count).toBe(4);
  });

  it('max_retries 0 means one attempt only; a later success resets failure_count', async () => {
    receiver.respond((n) => ({ status: n === 1 ? 502 : 204 }));
    const sub = await subscribe(t, { url: receiver.url, events: ['product.published'], maxRetries: 0 });
    await emit(t, 'product.published');
    await advance(t, 72 * H);
    expect(receiver.received).toHaveLength(1);
    expect((await getSubscription(t, sub.id)).failure_count).toBe(1);
    await emit(t, 'product.published');
    expect((await getSubscription(t, sub.id)).failure_count).toBe(0);
  });

  it('a 410 deactivates the subscription and stops retries', async () => {
    receiver.respond({ status: 410 });
    const sub = await subscribe(t, { url: receiver.url, events: ['product.created'], maxRetries: 5 });
    await emit(t, 'product.created');
    await advance(t, 72 * H);
    expect(receiver.received).toHaveLength(1);
    expect(await getSubscription(t, sub.id)).toMatchObject({ active: false, failure_count: 1 });
    expect(deliveriesOf(t, sub.id)[0]).toMatchObject({ status: 'failed', reason: expect.stringContaining('410') });
    await emit(t, 'product.created');
    expect(receiver.received).toHaveLength(1);
  });

  it('a 3xx is a failure and is not followed', async () => {
    receiver.respond({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const sub = await subscribe(t, { url: receiver.url, events: ['product.updated'], maxRetries: 0 });
    await emit(t, 'product.updated');
    expect(receiver.received.map((r) => r.url)).toEqual(['/webhooks']);
    expect(deliveriesOf(t, sub.id)[0]).toMatchObject({ status: 'failed' });
  });

  it('honours Retry-After on 429 and 503', async () => {
    receiver.respond((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '120' } } : n === 2 ? { status: 503, headers: { 'retry-after': '7200' } } : { status: 200 },
    );
    const sub = await subscribe(t, { url: receiver.url, events: ['booking.updated'], maxRetries: 5 });
    await emit(t, 'booking.updated');
    await advance(t, 119_000);
    expect(receiver.received).toHaveLength(1);
    await advance(t, 1_000);
    expect(receiver.received).toHaveLength(2);
    await advance(t, 2 * H - 1);
    expect(receiver.received).toHaveLength(2);
    await advance(t, 1);
    expect(receiver.received).toHaveLength(3);
    expect(deliveriesOf(t, sub.id)[0]).toMatchObject({ status: 'succeeded', retries: 2 });
  });

  it('records a refused connection as an attempt with an error', async () => {
    const sub = await subscribe(t, { url: 'http://127.0.0.1:9/nothing-listens', events: ['customer.updated'], maxRetries: 0 });
    await emit(t, 'customer.updated');
    const [delivery] = deliveriesOf(t, sub.id);
    expect(delivery!.attempts[0]).toMatchObject({ response: null, error: expect.any(String) });
    expect(delivery!.status).toBe('failed');
  });
});

describe('webhook latency (bench/webhook-latency.ts)', () => {
  it('emits count events to a local receiver and reports median and p99', async () => {
    const { measureWebhookLatency } = await import('../../bench/webhook-latency.ts');
    const result = await measureWebhookLatency(20);
    expect(result.count).toBe(20);
    expect(result.medianMs).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.medianMs);
  });
});
