import { createServer } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/index.ts';
import { WEBHOOK_EVENT_TYPES } from '../../../src/webhooks/catalogue.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { expectOneLineFailure, useSandbox } from './harness.ts';

/** The CLI's rough edges, each with its way out. */
const t = useSandbox();
const bare = (args: string[]) => runCliInProcess(args, { SANDBOX_URL: '' });
/** against the test's sandbox, with nothing appended after a `--` */
const viaEnv = (args: string[]) => runCliInProcess(args, { SANDBOX_URL: t.sandbox.url });
const firstLine = (stderr: string) => stderr.split('\n')[0];

describe('did you mean', () => {
  it("trigger with a misspelt event type names the argument and suggests the type, without the control plane's field path", async () => {
    const line = expectOneLineFailure(await t.cli(['trigger', 'booking.creatd']));
    expect(line).toBe(`sandbox: unknown event type "booking.creatd" (did you mean "booking.created"?); the catalogue: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  });

  it('the control plane says the same in its 400', async () => {
    const workspaceId = t.sandbox.workspaces[0]!.id;
    const res = await fetch(`${t.sandbox.controlUrl}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workspaceId, type: 'payment.refundd' }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { details: { message: string }[] };
    expect(body.details[0]!.message).toContain('unknown event type "payment.refundd" (did you mean "payment.refunded"?)');
  });

  it('a misspelt subcommand of a group is suggested', async () => {
    const lst = await bare(['keys', 'lst']);
    expect(lst.code).toBe(2);
    expect(lst.stderr).toBe('sandbox: unknown command "keys lst"; did you mean "keys list"? keys has: list, create, revoke (sandbox keys --help)\n');
    expect((await bare(['scenario', 'rnu'])).stderr).toMatch(/^sandbox: unknown command "scenario rnu"; did you mean "scenario run"\?/);
  });
});

describe('options that belong to something else', () => {
  it('exec with options it does not know says to put -- before the command', async () => {
    const r = await bare(['exec', 'ls', '-la']);
    expect(r.code).toBe(2);
    expect(firstLine(r.stderr)).toBe(
      'sandbox: unknown option "-la"; the command to run goes after --, so its options stay its own: sandbox exec [options] -- <command...>',
    );
  });

  it('clock advance -5m is refused as a negative duration, with the way back, not as an unknown option', async () => {
    const before = (await (await fetch(`${t.sandbox.controlUrl}/clock`)).json()) as { data: { now: string } };
    const hint = '"-5m" is a negative duration, and advancing moves the clock forward only; to go back, `sandbox clock set <iso>` (a manual clock only)';
    const bareFlag = await viaEnv(['clock', 'advance', '-5m']);
    expect(bareFlag.code).toBe(2);
    expect(firstLine(bareFlag.stderr)).toBe(`sandbox: ${hint}`);
    // after --, the duration reaches the parser, which says the same
    expect(expectOneLineFailure(await viaEnv(['clock', 'advance', '--', '-5m']))).toBe(`sandbox: ${hint}`);
    expect(expectOneLineFailure(await viaEnv(['clock', 'advance', '-5000']))).toBe(`sandbox: ${hint.replace('-5m', '-5000')}`);
    expect(firstLine((await viaEnv(['workspace', 'advance', t.sandbox.workspaces[0]!.id, '-1h'])).stderr)).toBe(`sandbox: ${hint.replace('-5m', '-1h')}`);
    const after = (await (await fetch(`${t.sandbox.controlUrl}/clock`)).json()) as { data: { now: string } };
    expect(after.data.now).toBe(before.data.now);
  });
});

describe('a port in use', () => {
  async function busyPort(): Promise<{ port: number; close: () => void }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as { port: number }).port, close: () => server.close() };
  }

  it('createSandbox() names its option; the CLI names its flag', async () => {
    const busy = await busyPort();
    try {
      const error = await createSandbox({ port: busy.port }).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(error?.message).toBe(`Port ${busy.port} on 127.0.0.1 is already in use; stop the other process or pass the \`port\` option (0 picks a free port)`);
      expect(error?.message).not.toContain('--');
      const dir = await mkdtemp(join(tmpdir(), 'tcs-busy-'));
      const r = await bare(['start', '--port', String(busy.port), '--data', join(dir, '.sandbox', 'db.json')]);
      expect(expectOneLineFailure(r)).toBe(
        `sandbox: Port ${busy.port} on 127.0.0.1 is already in use; stop the other process or pass --port <n> (0 picks a free port)`,
      );
      // point 5: the failed start wrote no database (nor its directory)
      expect(existsSync(join(dir, '.sandbox'))).toBe(false);
    } finally {
      busy.close();
    }
  });
});
