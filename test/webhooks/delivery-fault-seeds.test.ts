import { describe, expect, it } from 'vitest';
import { testSandbox } from '../helpers/sandbox.ts';
import { advance, deliveriesOf, emit, subscribe, verify } from './helpers.ts';
import { startReceiver } from './receiver.ts';

/**
 * Seeded delivery rules repeat: the same events under the same rules give the same delivery
 * schedule in every run (which deliveries are duplicated, held or dropped, and when, on the
 * sandbox clock), and the receiver gets them in the same order. Delivery and event ids are
 * random, so the schedule names each delivery by its event's place in the run.
 */
const TYPES = ['booking.created', 'booking.updated', 'payment.succeeded', 'booking.cancelled', 'customer.created'];

async function run(seed: number): Promise<{ schedule: string[]; arrivals: string[] }> {
  const t = await testSandbox({ enforceRateLimits: false });
  const receiver = await startReceiver();
  try {
    const sub = await subscribe(t, { url: receiver.url, events: ['*'], maxRetries: 3 });
    const rule = (body: Record<string, unknown>) =>
      t.request('POST', '/__sandbox/faults', { key: null, body: { target: 'delivery', probability: 0.25, ...body } });
    await rule({ duplicate: true, latencyMs: 1500, seed });
    await rule({ drop: true, seed: seed + 1 });
    await rule({ reorderMs: 4000, seed: seed + 2 });
    const start = t.sandbox.clock.now();
    const events: string[] = [];
    for (let i = 0; i < 24; i++) {
      events.push((await emit(t, TYPES[i % TYPES.length]!, { id: `book_${i}` })).id);
      await advance(t, 500);
    }
    await advance(t, 60_000);
    const place = (eventId: string) => `#${events.indexOf(eventId)}`;
    const schedule = deliveriesOf(t, sub.id)
      .map((d) => {
        // rule ids are random, as request rules' are: the error that names one names the rule
        const times = d.attempts.map((a) => `${Date.parse(a.at) - start}ms:${a.response?.status ?? a.error?.replace(/fault_\w+/, 'the rule')}`).join(',');
        return `${place(d.eventId)} ${d.fault ? `${d.fault.action}${d.fault.duplicateOf ? ' (the duplicate)' : ''}` : 'untouched'} ${d.status} ${times}`;
      })
      .sort();
    const arrivals = receiver.received.map((r) => {
      verify(sub.secret, r);
      return place((JSON.parse(r.body) as { id: string }).id);
    });
    return { schedule, arrivals };
  } finally {
    await t.sandbox.stop();
    await receiver.close();
  }
}

describe('seeded delivery rules', () => {
  it('give the same schedule and the same arrival order twice, and another seed another one', async () => {
    const first = await run(7);
    const again = await run(7);
    expect(again.schedule).toEqual(first.schedule);
    expect(again.arrivals).toEqual(first.arrivals);
    // not a schedule in which nothing happens: each rule fired, and some deliveries went untouched
    const actions = new Set(first.schedule.map((line) => line.split(' ')[1]));
    expect([...actions].sort()).toEqual(['drop', 'duplicate', 'reorder', 'untouched']);
    expect(first.arrivals.length).toBeGreaterThan(24);
    const other = await run(8);
    expect(other.schedule).not.toEqual(first.schedule);
  });
});
