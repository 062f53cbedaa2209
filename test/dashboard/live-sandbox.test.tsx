import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { App } from '../../src/dashboard/App.tsx';
import { ControlSource } from '../../src/dashboard/control-source.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { waitForFrame } from './fake-source.ts';

/** Against a real sandbox: what the control plane sends decides what the rows read. */
const WAIT = 3000; // turns of at least 5 ms: a 15 s deadline

let sandbox: Sandbox;
let receiver: Receiver;
let client: ControlClient;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', enforceRateLimits: false });
  receiver = await startReceiver();
  receiver.respond({ status: 500, body: 'down' });
  client = new ControlClient({ url: sandbox.url });
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});

function mount() {
  const source = new ControlSource(client, { pollMs: 50 });
  return render(<App source={source} batchMs={0} tickMs={0} size={{ columns: 120, rows: 40 }} color={false} />);
}

describe('the dashboard on a live sandbox', () => {
  it('reads "n/max" in TRY for a delivery loaded at connect as for one that arrives live', async () => {
    const workspaceId = sandbox.workspaces[0]!.id;
    await client.ensureSubscription({
      workspaceId,
      url: receiver.url,
      events: ['customer.created', 'booking.created'],
      description: 'dashboard test',
      maxRetries: 5,
    });
    await client.emitEvent({ workspaceId, type: 'customer.created', data: { id: 'ppl_loaded' } });
    await sandbox.context.webhooks.idle();
    const app = mount();
    try {
      await waitForFrame(app.lastFrame, (f) => f.includes('customer.created'), WAIT);
      await client.emitEvent({ workspaceId, type: 'booking.created' });
      // polls keep replacing the rows: wait for both to read n/max, which the loaded one never did
      const frame = await waitForFrame(app.lastFrame, (f) => /customer\.created\s+\S+\s+1\/6\s/.test(f) && /booking\.created\s+\S+\s+1\/6\s/.test(f), WAIT);
      expect(frame).not.toMatch(/\.created\s+\S+\s+1\s+pending/);
    } finally {
      app.unmount();
    }
  });

  it('shows a workspace created while it runs by its name', async () => {
    const app = mount();
    try {
      await waitForFrame(app.lastFrame, (f) => f.includes('● live'), WAIT);
      const created = await client.createWorkspace({ name: 'Worker Seven' });
      await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${created.keys[0]!.key}` } });
      const frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/products?limit=1') && f.includes('Worker Seven'), WAIT);
      expect(frame).not.toContain(created.id.slice(0, 12));
    } finally {
      app.unmount();
    }
  });
});
