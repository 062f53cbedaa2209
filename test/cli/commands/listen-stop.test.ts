import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/control/client.ts';
import { runCli, waitForStdout } from '../../helpers/cli.ts';
import { useSandbox } from './harness.ts';

/** `listen`, when stopped, says what it did with its subscription and its pending deliveries. */
const t = useSandbox();
let receiver: Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    res.writeHead(500).end('down');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => receiver.close());

describe('sandbox listen, stopped', () => {
  it('says in one line that its subscription is paused and what becomes of the pending delivery', async () => {
    const workspace = t.sandbox.workspaces[0]!;
    const run = runCli(['listen', '--forward-to', hookUrl, '--workspace', workspace.id, '--url', t.sandbox.url]);
    await waitForStdout(run, 'Forwarding');
    expect((await t.cli(['trigger', 'booking.created', '--workspace', workspace.id])).code).toBe(0);
    await waitForStdout(run, 'attempt 1');
    run.child.kill('SIGINT');
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    const { subscription } = await new ControlClient({ url: t.sandbox.url }).findSubscription({ workspaceId: workspace.id, url: hookUrl });
    expect(exit.stderr).toBe(
      `Stopped: subscription ${subscription.id} is paused, so new events are not sent to it; its 1 pending delivery was cancelled (\`sandbox events list --status cancelled\`); \`sandbox listen\` to the same URL resumes the subscription\n`,
    );
  });
});
