import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptJson, attemptLine } from '../../src/cli/listen.ts';
import { ControlClient, type DeliverySummary } from '../../src/control/client.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * Issue 26: `sandbox listen` printed "next retry …T15:22:09.907Z" on attempt 1 while attempt 2
 * ran at 15:22:07.044. With a small --webhook-retry-scale, attempts 1 and 2 both arrive in one
 * poll, and every line printed the delivery's current nextAttemptAt (the one after attempt 2).
 * The delivery here is read back as listen reads it (GET /__sandbox/deliveries) once both
 * attempts ran, which is that poll.
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

describe('sandbox listen: the next retry of each attempt', () => {
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
