import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { runCliInProcess as cli } from '../helpers/cli-in-process.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let sandbox: Sandbox;
let receiver: Receiver;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', enforceRateLimits: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await sandbox.stop();
  await receiver.close();
});

const live = () => sandbox.workspaces.find((w) => w.mode === 'live')!;

describe('sandbox listen / trigger', () => {
  it('listen --print-secret prints only the secret and subscribes nothing; a listen then delivers requests signed with it', async () => {
    const listen = await cli([
      'listen',
      '--forward-to',
      receiver.url,
      '--events',
      'booking.*',
      '--workspace',
      live().name,
      '--print-secret',
      '--url',
      sandbox.url,
    ]);
    expect(listen.code).toBe(0);
    const secret = listen.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // as `stripe listen --print-secret`: nothing is forwarded until listen runs
    const idle = await cli(['trigger', 'booking.created', '--workspace', live().id, '--data', '{"id":"book_idle"}', '--url', sandbox.url]);
    expect(idle.stdout).toMatch(/: 0 deliveries queued\n$/);
    const run = runCli(['listen', '--forward-to', receiver.url, '--events', 'booking.*', '--workspace', live().name, '--url', sandbox.url]);
    try {
      await waitForStdout(run, secret);
      const arrived = receiver.next();
      const trigger = await cli(['trigger', 'booking.created', '--workspace', live().id, '--data', '{"id":"book_cli"}', '--url', sandbox.url]);
      expect(trigger.stdout).toMatch(/^Emitted booking\.created evt_\S+ in .+: 1 delivery queued\n$/);
      const got = await arrived;
      expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'booking.created', data: { id: 'book_cli' } });
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });

  it('listen prints each delivery as it happens', async () => {
    const run = runCli(['listen', '--forward-to', `${receiver.url}/live`, '--events', 'customer.created', '--url', sandbox.url]);
    try {
      await waitForStdout(run, 'signing secret');
      const workspaceId = sandbox.workspaces.find((w) => w.mode === 'sandbox')!.id; // listen's default: the README key's workspace
      const printed = waitForStdout(run, 'attempt 1'); // the banner names customer.created already
      await sandbox.app.inject({ method: 'POST', url: '/__sandbox/events', payload: { workspaceId, type: 'customer.created', data: { id: 'ppl_cli' } } });
      await sandbox.context.webhooks.idle();
      await printed;
      run.child.kill('SIGTERM');
      const { stdout } = await run.exit;
      expect(stdout).toMatch(/customer\.created\s+200\s+\d+ms\s+attempt 1/);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  it('fails with one clear line when no sandbox is running', async () => {
    for (const args of [
      ['trigger', 'booking.created'],
      ['listen', '--forward-to', receiver.url],
    ]) {
      const { code, stderr } = await cli([...args, '--url', 'http://127.0.0.1:9']);
      expect(code).toBe(1);
      expect(stderr).toMatch(/^sandbox: no sandbox is running at http:\/\/127\.0\.0\.1:9 \(connection refused\)[^\n]*\n$/);
    }
  });

  it('trigger reports a bad event type or bad --data in one line', async () => {
    const bad = await cli(['trigger', 'booking.exploded', '--url', sandbox.url]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^sandbox: unknown event type "booking.exploded".*; the catalogue: booking.created, /);
    const data = await cli(['trigger', 'booking.created', '--data', '{nope', '--url', sandbox.url]);
    expect(data.stderr).toMatch(/^sandbox: --data is not valid JSON/);
  });
});
