import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox } from '../helpers/sandbox.ts';
import { advance, deliveriesOf, emit, getSubscription, subscribe, verify } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let dir: string;
let receiver: Receiver;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-webhooks-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

describe('durable outbox', () => {
  it('a sandbox stopped during a retry backoff still delivers after it starts again on the same file', async () => {
    const storage = join(dir, 'db.json');
    receiver.respond({ status: 500 });
    const first = await testSandbox({ storage, fsync: false });
    const sub = await subscribe(first, { url: receiver.url, events: ['booking.*'], maxRetries: 3 });
    await emit(first, 'booking.created', { id: 'book_restart' });
    expect(receiver.received).toHaveLength(1);
    const [pending] = deliveriesOf(first, sub.id);
    expect(pending).toMatchObject({ status: 'pending', retries: 1 });
    await first.sandbox.stop();

    receiver.respond({ status: 200 });
    const second = await testSandbox({ storage, fsync: false });
    try {
      expect(second.sandbox.clock.state().pendingTimers).toBeGreaterThan(0);
      await advance(second, 10_000);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]!.headers['webhook-id']).toBe(pending!.id);
      expect(verify(sub.secret, receiver.received[1]!)).toMatchObject({ type: 'booking.created', data: { id: 'book_restart' } });
      expect(deliveriesOf(second, sub.id)[0]).toMatchObject({ status: 'succeeded', retries: 1 });
      expect((await getSubscription(second, sub.id)).failure_count).toBe(0);
    } finally {
      await second.sandbox.stop();
    }
  });
});
