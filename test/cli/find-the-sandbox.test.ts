import { describe, expect, it } from 'vitest';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { useSandbox } from './commands/harness.ts';

/**
 * Every command that talks to a running sandbox
 * takes --url, then $SANDBOX_URL, then the default, and says so in its help;
 * the --json ready line carries the control token when there is one.
 */
const t = useSandbox();
const withEnv = (args: string[], env: Record<string, string>) => runCliInProcess(args, env);

describe('finding the sandbox', () => {
  it('trigger, listen and dashboard honour $SANDBOX_URL (as inside `sandbox exec`)', async () => {
    const env = { SANDBOX_URL: t.sandbox.url };
    const trigger = await withEnv(['trigger', 'booking.created', '--json'], env);
    expect(trigger.stderr).toBe('');
    expect(JSON.parse(trigger.stdout).event.type).toBe('booking.created');

    const listen = await withEnv(['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--print-secret'], env);
    expect(listen.code).toBe(0);
    expect(listen.stdout.trim()).toMatch(/^whsec_/);

    const dashboard = runCli(['dashboard'], env);
    await waitForStdout(dashboard, 'connected to the sandbox');
    dashboard.child.kill('SIGTERM');
    await dashboard.exit;
  });

  it('--url wins over $SANDBOX_URL', async () => {
    const r = await withEnv(['trigger', 'booking.created', '--json', '--url', t.sandbox.url], { SANDBOX_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(0);
  });

  it('the help of every such command says where the URL comes from', async () => {
    for (const command of [['listen'], ['trigger'], ['dashboard'], ['keys', 'list'], ['logs'], ['clock', 'advance']]) {
      const help = await withEnv([...command, '--help'], { SANDBOX_URL: '' });
      expect(help.stdout.replace(/\s+/g, ' '), command.join(' ')).toContain(
        '--url <url> the running sandbox (default: $SANDBOX_URL, else the one `start --detach` started here, else http://127.0.0.1:4010)',
      );
    }
  });
});

describe('the --json ready line', () => {
  it('carries the control URL, and the generated control token on a non-loopback host', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0', '--host', '0.0.0.0', '--json']);
    const ready = JSON.parse(await run.firstLine) as { url: string; controlUrl: string; controlToken?: string };
    try {
      expect(ready.controlUrl).toBe(`${ready.url}/__sandbox`);
      expect(ready.controlToken).toMatch(/^\S{16,}$/);
      const local = ready.controlUrl.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${local}/health`)).status).toBe(401);
      expect((await fetch(`${local}/health`, { headers: { 'x-sandbox-token': ready.controlToken! } })).status).toBe(200);
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });
});
