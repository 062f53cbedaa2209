import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

/**
 * POST /__sandbox/clock/advance-to-next on a real clock (docs/control-plane.md, its clock routes): a
 * webhook retry it runs is an HTTP request the move does not wait for there, and the answer's
 * `next` must still name the retry the refused attempt schedules (it was null: the answer was
 * written before the attempt ended).
 */
let sandbox: Sandbox;
let receiver: Receiver;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, storage: 'memory' }); // a real clock, as `sandbox start` and `sandbox mcp --start` run
  receiver = await startReceiver();
  receiver.respond({ status: 500, body: 'down' });
});
afterAll(async () => {
  await sandbox?.stop();
  await receiver?.close();
});

describe('advance to the next timer, on a real clock', () => {
  it('names what ran and the retry the refused attempt scheduled', async () => {
    const client = new ControlClient({ url: sandbox.url });
    const workspaceId = sandbox.defaultWorkspace!.id;
    const { subscription } = await client.ensureSubscription({ workspaceId, url: receiver.url, events: ['customer.created'], maxRetries: 5 });
    await client.emitEvent({ workspaceId, type: 'customer.created', data: { id: 'ppl_to_next' } });
    await sandbox.context.webhooks.idle(); // the first attempt, refused
    const [delivery] = await client.deliveries({ subscriptionId: subscription.id, limit: 1 });
    expect(delivery).toMatchObject({ status: 'pending', attempts: [expect.objectContaining({ trigger: 'initial' })] });

    const moved = await client.advanceClockToNext(workspaceId);
    const label = `webhook retry ${delivery!.id} (customer.created)`;
    expect(moved.ran.map((r) => r.label)).toContain(label);
    expect(moved.next).toMatchObject({ label });
    expect(receiver.received).toHaveLength(2); // the retry was answered before the move was
    expect(Date.parse(moved.next!.at)).toBeGreaterThan(Date.parse(moved.now));
    expect(moved.pendingTimers).toBeGreaterThan(0);
  });
});
