import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitDomainEvent } from '../../src/core/events.ts';
import type { Delivery } from '../../src/webhooks/outbox.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

let t: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.sandbox.stop();
  await receiver.close();
});

const settle = () => t.sandbox.context.webhooks.idle();

describe('webhooks of created workspaces', () => {
  it('stay within their workspace: deliveries, retries on its own clock, and nothing for the others', async () => {
    const [a, b] = [await t.sandbox.createWorkspace(), await t.sandbox.createWorkspace()];
    const subscribe = async (key: string) => {
      const res = await t.request('POST', '/v1/webhooks/subscriptions', { key, body: { url: receiver.url, events: ['booking.*'] } });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().data as { id: string };
    };
    const [subA, subB, subFixture] = [await subscribe(a.keys[0]!.key), await subscribe(b.keys[0]!.key), await subscribe(KEYS.sandboxFull)];
    receiver.respond({ status: 503 }); // every first attempt fails: a retry is scheduled in 5 s
    emitDomainEvent(t.sandbox.events, t.sandbox.clock, a.id, 'booking.created', { id: 'book_a' });
    await settle();
    expect(receiver.received.map((r) => JSON.parse(r.body).workspace_id)).toEqual([a.id]);
    const outbox = (ws: string) => t.sandbox.store.list<Delivery>('webhookDeliveries', ws);
    expect(outbox(a.id).map((d) => d.subscriptionId)).toEqual([subA.id]);
    expect([outbox(b.id), outbox(t.sandboxWorkspaceId)]).toEqual([[], []]);
    expect(subB.id).not.toBe(subFixture.id);

    receiver.respond({ status: 200 });
    await b.advance(60_000); // another workspace's time: no retry for a
    await settle();
    expect(receiver.received).toHaveLength(1);
    await a.advance(60_000);
    await settle();
    expect(receiver.received).toHaveLength(2);
    expect(outbox(a.id)[0]).toMatchObject({ status: 'succeeded', retries: 1 });
  });
});
