import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * Once `sandbox listen` stops, its subscription is paused and its pending deliveries are cancelled
 * (docs/webhooks.md), not left showing "pending, next retry …". Pausing through the control plane
 * (what listen does on Ctrl+C) cancels them at once, on a manual clock that nobody advances.
 */
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

describe("pausing listen's subscription", () => {
  it("cancels its pending deliveries at once, and leaves other subscriptions' alone", async () => {
    const client = new ControlClient({ url: sandbox.url });
    const workspaceId = sandbox.workspaces.find((w) => w.mode === 'sandbox')!.id;
    const { subscription } = await client.ensureSubscription({ workspaceId, url: receiver.url, events: ['customer.created'], description: 'sandbox listen' });
    const other = await client.ensureSubscription({ workspaceId, url: `${receiver.url}/other`, events: ['customer.created'] });
    await client.emitEvent({ workspaceId, type: 'customer.created', data: { id: 'ppl_pending' } });
    await sandbox.context.webhooks.idle();
    const [before] = await client.deliveries({ subscriptionId: subscription.id });
    expect(before).toMatchObject({ status: 'pending', retries: 1 });
    expect(before!.nextAttemptAt).not.toBeNull();

    await client.setSubscriptionActive(subscription.id, { workspaceId, active: false });
    const [after] = await client.deliveries({ subscriptionId: subscription.id });
    expect(after).toMatchObject({ id: before!.id, status: 'cancelled', reason: 'subscription paused', nextAttemptAt: null });
    expect((await client.deliveries({ subscriptionId: other.subscription.id }))[0]).toMatchObject({ status: 'pending' });

    // its retry, when it comes up, sends nothing
    const sent = receiver.received.length;
    await sandbox.clock.advance(60_000);
    await sandbox.context.webhooks.idle();
    expect(receiver.received.length).toBe(sent + 1); // the other subscription's retry only
  });
});
