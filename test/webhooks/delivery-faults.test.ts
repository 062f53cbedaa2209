import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { advance, deliveriesOf, emit, settle, subscribe, verify, type CreatedSubscription } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * Delivery fault rules (docs/webhooks.md, "Testing your receiver"): each action, on a manual
 * clock, against a real receiver that checks every request with the standardwebhooks verifier.
 */
let t: TestSandbox;
let receiver: Receiver;
let sub: CreatedSubscription;
beforeEach(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  receiver = await startReceiver();
  sub = await subscribe(t, { url: receiver.url, events: ['*'] });
});
afterEach(async () => {
  await t.sandbox.stop();
  await receiver.close();
});

const addFault = async (body: Record<string, unknown>) => {
  const res = await t.request('POST', '/__sandbox/faults', { key: null, body: { target: 'delivery', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; remaining: number | null };
};
/** what the receiver got, oldest first: event type, webhook-id; every request verified */
const got = () =>
  receiver.received.map((r) => {
    verify(sub.secret, r);
    return { type: (JSON.parse(r.body) as { type: string }).type, id: r.headers['webhook-id'] as string, timestamp: r.headers['webhook-timestamp'] };
  });
const byEvent = (eventId: string) => deliveriesOf(t, sub.id).filter((d) => d.eventId === eventId);

describe('delivery fault rules', () => {
  it('duplicate: the event comes twice with the same webhook-id and body, both validly signed; the duplicate says whose it is', async () => {
    const rule = await addFault({ duplicate: true });
    const event = await emit(t, 'booking.created');
    expect(got().map((r) => r.type)).toEqual(['booking.created', 'booking.created']);
    const [first, second] = receiver.received;
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    const original = byEvent(event.id).find((d) => !d.fault!.duplicateOf);
    const duplicate = byEvent(event.id).find((d) => d.fault!.duplicateOf);
    expect(original!.fault).toMatchObject({ action: 'duplicate', ruleId: rule.id, duplicateId: duplicate!.id });
    expect(original!.fault!.summary).toBe(`duplicated by ${rule.id}: its duplicate is ${duplicate!.id}`);
    expect(duplicate).toMatchObject({ status: 'succeeded', webhookId: original!.id, fault: { duplicateOf: original!.id } });
    expect(duplicate!.fault!.summary).toBe(`duplicate of ${original!.id}, made by ${rule.id}`);
    expect(duplicate!.attempts[0]!.request.headers['webhook-id']).toBe(original!.id);
    // fired once, as a request rule does: the next event comes once
    await emit(t, 'booking.updated');
    expect(got().map((r) => r.type)).toEqual(['booking.created', 'booking.created', 'booking.updated']);
  });

  it('duplicate with latency: the duplicate follows when the sandbox clock reaches it, not before', async () => {
    const rule = await addFault({ duplicate: true, latencyMs: 2000, times: 2 });
    await emit(t, 'booking.created');
    expect(got()).toHaveLength(1);
    await advance(t, 1999);
    expect(got()).toHaveLength(1);
    await advance(t, 1);
    expect(got()).toHaveLength(2);
    const duplicate = deliveriesOf(t, sub.id).find((d) => d.fault!.duplicateOf)!;
    expect(duplicate.fault!.summary).toBe(`duplicate of ${duplicate.webhookId}, made by ${rule.id} 2s after its first answer`);
  });

  it('reorder: the held event is overtaken by the next one, and its record says by which', async () => {
    const rule = await addFault({ reorderMs: 3000, event: 'booking.created' });
    const created = await emit(t, 'booking.created');
    const updated = await emit(t, 'booking.updated');
    expect(got().map((r) => r.type)).toEqual(['booking.updated']);
    const [held] = byEvent(created.id);
    expect(held).toMatchObject({ status: 'pending', nextAttemptAt: new Date(t.sandbox.clock.now() + 3000).toISOString() });
    expect(held!.fault!.summary).toBe(`held 3s by ${rule.id}`);
    await advance(t, 3000);
    expect(got().map((r) => r.type)).toEqual(['booking.updated', 'booking.created']);
    expect(byEvent(created.id)[0]!.fault!.summary).toBe(`held 3s by ${rule.id}, delivered after ${updated.id}`);
  });

  it('latency: every matching delivery is late by that much, until the rule is removed', async () => {
    const rule = await addFault({ latencyMs: 2000, event: 'booking.*' });
    expect(rule.remaining).toBeNull();
    const created = await emit(t, 'booking.created');
    const payment = await emit(t, 'payment.succeeded');
    const updated = await emit(t, 'booking.updated');
    expect(got().map((r) => r.type)).toEqual(['payment.succeeded']);
    await advance(t, 2000);
    expect(got().map((r) => r.type)).toEqual(['payment.succeeded', 'booking.created', 'booking.updated']);
    expect(byEvent(created.id)[0]!.fault!.summary).toBe(`late 2s by ${rule.id}, delivered after ${payment.id}`);
    // the payment was made before it: it went first, but did not overtake it
    expect(byEvent(updated.id)[0]!.fault!.summary).toBe(`late 2s by ${rule.id}, no later event overtook it`);
    expect(byEvent(payment.id)[0]!.fault).toBeNull();
  });

  it('drop: the first attempt is not sent and counts as a timeout; the receiver sees the retry', async () => {
    const rule = await addFault({ drop: true });
    const event = await emit(t, 'booking.created');
    expect(got()).toEqual([]);
    const [dropped] = byEvent(event.id);
    expect(dropped).toMatchObject({ status: 'pending', retries: 1 });
    expect(dropped!.attempts[0]).toMatchObject({ response: null, error: `dropped by ${rule.id}: not sent, treated as a timeout` });
    expect(dropped!.fault!.summary).toBe(`first attempt dropped by ${rule.id} (not sent, treated as a timeout); the retry schedule runs`);
    await advance(t, 5500); // retry 1: 5 s, jittered ±10 %
    expect(got().map((r) => r.id)).toEqual([dropped!.id]);
    expect(byEvent(event.id)[0]).toMatchObject({ status: 'succeeded', attempts: [{ trigger: 'initial' }, { trigger: 'retry' }] });
  });

  it('hold-until: matching deliveries wait for the outage to end, then all go at once, in order; later ones go as usual', async () => {
    const rule = await addFault({ holdUntil: '30s' });
    await emit(t, 'booking.created');
    await advance(t, 10_000);
    await emit(t, 'booking.updated');
    await emit(t, 'booking.cancelled');
    expect(got()).toEqual([]);
    expect((await t.request('GET', '/__sandbox/faults', { key: null })).json().data).toHaveLength(1);
    await advance(t, 20_000);
    expect(got().map((r) => r.type)).toEqual(['booking.created', 'booking.updated', 'booking.cancelled']);
    expect(deliveriesOf(t, sub.id).map((d) => d.fault!.summary)).toEqual([
      `held 20s by ${rule.id} (an outage), no later event overtook it`,
      `held 20s by ${rule.id} (an outage), no later event overtook it`,
      `held 30s by ${rule.id} (an outage), no later event overtook it`,
    ]);
    // the outage is over: the rule has gone, and the next event goes at once
    expect((await t.request('GET', '/__sandbox/faults', { key: null })).json().data).toEqual([]);
    await emit(t, 'payment.succeeded');
    expect(got().at(-1)!.type).toBe('payment.succeeded');
  });

  it("hold-until: a workspace whose own clock has passed the outage's end is no longer held, while the rule waits for the sandbox clock", async () => {
    await addFault({ holdUntil: '30s' });
    await emit(t, 'booking.created');
    await t.sandbox.clock.advanceWorkspace(t.liveWorkspaceId, 30_000);
    await settle(t);
    await emit(t, 'booking.updated');
    expect(got().map((r) => r.type)).toEqual(['booking.created', 'booking.updated']);
    expect(deliveriesOf(t, sub.id).find((d) => d.eventType === 'booking.updated')!.fault).toBeNull();
    expect((await t.request('GET', '/__sandbox/faults', { key: null })).json().data).toHaveLength(1);
  });

  it('fault clear releases what is held, in the order it was made, and says so', async () => {
    await addFault({ reorderMs: 3_600_000, times: 2 });
    await emit(t, 'booking.created');
    await emit(t, 'booking.updated');
    await emit(t, 'booking.cancelled');
    expect(got().map((r) => r.type)).toEqual(['booking.cancelled']);
    const cleared = await t.request('DELETE', '/__sandbox/faults', { key: null });
    // the rule had fired its two times and gone; what it held is released all the same
    expect(cleared.json().data).toEqual({ removed: 0, released: 2 });
    expect(got().map((r) => r.type)).toEqual(['booking.cancelled', 'booking.created', 'booking.updated']);
    const now = t.sandbox.clock.iso();
    const released = deliveriesOf(t, sub.id).filter((d) => d.fault);
    expect(released.map((d) => d.fault!.summary)).toEqual([expect.stringMatching(`; released by fault clear at ${now}$`), expect.anything()]);
  });

  it('times: a rule stops after that many; the others pass untouched, exactly as without a rule', async () => {
    await addFault({ duplicate: true, times: 2 });
    for (const type of ['booking.created', 'booking.updated', 'booking.cancelled']) await emit(t, type);
    expect(got().map((r) => r.type)).toEqual(['booking.created', 'booking.created', 'booking.updated', 'booking.updated', 'booking.cancelled']);
    const untouched = deliveriesOf(t, sub.id).find((d) => d.eventType === 'booking.cancelled')!;
    expect(untouched).toMatchObject({ eventType: 'booking.cancelled', fault: null, webhookId: untouched.id });
    expect(t.sandbox.context.webhooks.outbox.findRow(untouched.id)).not.toHaveProperty('fault');
  });

  it('held and duplicated deliveries count toward webhookMaxPending', async () => {
    const small = await testSandbox({ enforceRateLimits: false, webhookMaxPending: 2 });
    try {
      const s = await subscribe(small, { url: receiver.url, events: ['*'] });
      await small.request('POST', '/__sandbox/faults', { key: null, body: { target: 'delivery', holdUntil: '1h' } });
      for (const type of ['booking.created', 'booking.updated', 'booking.cancelled']) await emit(small, type);
      expect(deliveriesOf(small, s.id).map((d) => `${d.eventType} ${d.status}`)).toEqual([
        'booking.created expired',
        'booking.updated pending',
        'booking.cancelled pending',
      ]);
      // duplicates waiting for their time are pending deliveries too: the third pushes out the oldest
      await small.request('DELETE', '/__sandbox/faults', { key: null });
      await small.request('POST', '/__sandbox/faults', { key: null, body: { target: 'delivery', duplicate: true, latencyMs: 3_600_000, times: 3 } });
      for (const type of ['payment.succeeded', 'payment.failed', 'payment.refunded']) await emit(small, type);
      const duplicates = deliveriesOf(small, s.id).filter((d) => d.fault?.duplicateOf);
      expect(duplicates.map((d) => `${d.eventType} ${d.status}`)).toEqual(['payment.succeeded expired', 'payment.failed pending', 'payment.refunded pending']);
    } finally {
      await small.sandbox.stop();
    }
  });

  it('refuses a rule that mixes targets, does two things, or names what does not exist', async () => {
    const refused = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/__sandbox/faults', { key: null, body });
      return `${res.statusCode} ${JSON.stringify(res.json())}`;
    };
    expect(await refused({ target: 'delivery', duplicate: true, status: 500 })).toMatch(/^400 .*status: request rules only/);
    expect(await refused({ target: 'delivery', drop: true, reorderMs: 5 })).toMatch(/^400 .*does one thing.*asks for reorder and drop/);
    expect(await refused({ target: 'delivery' })).toMatch(/^400 .*asks for none/);
    expect(await refused({ duplicate: true })).toMatch(/^400 .*duplicate: delivery rules only; add target/);
    expect(await refused({ latencyMs: 300_000 })).toMatch(/^400 .*real time: at most 120000/);
    expect(await refused({ target: 'delivery', duplicate: true, event: 'invoice.*' })).toMatch(/^400 .*matches no event the sandbox emits/);
    expect(await refused({ target: 'delivery', duplicate: true, subscriptionId: 'whsub_nope' })).toBe('404 {"error":"Subscription whsub_nope not found"}');
    expect(await refused({ target: 'delivery', holdUntil: 'tomorrow' })).toMatch(/^400 .*neither an ISO time/);
    expect(await refused({ target: 'delivery', holdUntil: '2020-01-01T00:00:00Z' })).toMatch(/^400 .*would hold nothing/);
    await settle(t);
  });
});
