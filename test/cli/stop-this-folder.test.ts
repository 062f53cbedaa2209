import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning } from '../../src/cli/lifecycle.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * `sandbox stop` stops what it was pointed at (--url, --port, $SANDBOX_URL) or what
 * `start --detach` started from this folder, and nothing else (docs/cli.md, "In the
 * background"): never whatever answers on the default address. Each CLI runs in a folder of its
 * own with $SANDBOX_URL empty; the other sandboxes are on free ports, never on 4010.
 */
let dir: string;
const started: number[] = [];
const others: Sandbox[] = [];
const files: string[] = [];
afterEach(async () => {
  for (const sandbox of others.splice(0)) await sandbox.stop();
  for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  for (const file of files.splice(0)) await rm(file, { force: true });
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cli = async (args: string[], env: Record<string, string> = {}) => runCli(args, { SANDBOX_URL: '', ...env }, dir).exit;

type Ready = { url: string; pid: number; log: string };

async function detach(args: string[] = ['--port', '0']): Promise<Ready> {
  const r = await cli(['start', '--detach', '--json', '--in-memory', ...args]);
  expect(r.code, r.stderr).toBe(0);
  const ready = JSON.parse(r.stdout.trim()) as Ready;
  started.push(ready.pid);
  files.push(ready.log);
  return ready;
}

/** Another sandbox, as a developer's own on this machine: it must still answer after every bare `stop`. */
async function otherSandbox(port = 0): Promise<Sandbox> {
  const sandbox = await createSandbox({ port, storage: 'memory' });
  others.push(sandbox);
  return sandbox;
}
/** `attempt`'s first non-null answer, tried every 50 ms for up to 15 s. */
async function until<T>(attempt: () => Promise<T | null>): Promise<T> {
  for (const deadline = Date.now() + 15_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const value = await attempt();
    if (value !== null || Date.now() > deadline) return value ?? fail('the port was not freed within 15 s');
  }
}
const fail = (message: string): never => {
  throw new Error(message);
};
const answers = async (url: string) => (await fetch(`${url}/__sandbox/health`)).status === 200;

const NONE_RECORDED =
  'sandbox: no sandbox to stop: none started from this folder with `sandbox start --detach` is recorded (.sandbox/detached.json); name one with --url or --port, or set SANDBOX_URL\n';

describe('sandbox stop without --url or --port', () => {
  it('stops the sandbox `start --detach` started from this folder; `wait` finds it too', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-stop-here-'));
    const other = await otherSandbox();
    const ready = await detach();

    const wait = await cli(['wait', '--timeout', '10s']);
    expect(wait.stdout).toBe(`the sandbox at ${ready.url} is ready\n`);

    const stop = await cli(['stop']);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(`stopped the sandbox at ${ready.url} (process ${ready.pid} has exited; its data is flushed)\n`);
    expect(isRunning(ready.pid)).toBe(false);
    expect(await answers(other.url)).toBe(true);

    // stopped, it leaves the record: a second stop has nothing to stop
    const again = await cli(['stop']);
    expect(again).toMatchObject({ code: 1, stdout: '', stderr: NONE_RECORDED });
  });

  it('every command talking to a sandbox finds the one started here too; $SANDBOX_URL and --url still win', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-stop-here-'));
    const other = await otherSandbox();
    const ready = await detach(['--port', '0', '--clock', 'manual']);
    const [port, otherPort] = [new URL(ready.url).port, new URL(other.url).port];

    await cli(['clock', 'advance', '1h']);
    const here = JSON.parse((await cli(['clock', '--json'])).stdout) as { advancedMs: number };
    expect(here.advancedMs).toBe(3_600_000);
    // the sandbox answering elsewhere was not the one moved
    expect(((await (await fetch(`${other.url}/__sandbox/clock`)).json()) as { data: { advancedMs: number } }).data.advancedMs).toBe(0);

    const byEnv = await cli(['clock', '--json'], { SANDBOX_URL: other.url });
    expect(JSON.parse(byEnv.stdout).advancedMs, `${port} vs ${otherPort}`).toBe(0);
    const byFlag = await cli(['clock', '--json', '--url', other.url]);
    expect(JSON.parse(byFlag.stdout).advancedMs).toBe(0);

    expect((await cli(['stop'])).code).toBe(0);
  });

  it('after a detached start that failed (its port in use), stops nothing: one line, exit 1, and the sandbox on that port answers on', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-stop-here-'));
    const other = await otherSandbox();
    const port = new URL(other.url).port;
    const failed = await cli(['start', '--detach', '--in-memory', '--port', port, '--log', 'start.log']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);

    const stop = await cli(['stop']);
    expect(stop).toMatchObject({ code: 1, stdout: '', stderr: NONE_RECORDED });
    expect(await answers(other.url)).toBe(true);
  });

  it('a recorded sandbox that has exited is not confused with what took its port since', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-stop-here-'));
    const port = await freePort();
    const ready = await detach(['--port', String(port)]);
    process.kill(ready.pid, 'SIGKILL');
    while (isRunning(ready.pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    // the killed process's port is free once the kernel has closed its socket, which on a loaded
    // machine may come a moment after the process is gone: bind as soon as it is
    const other = await until(() => otherSandbox(port).catch(() => null));

    const stop = await cli(['stop']);
    expect(stop.code).toBe(1);
    expect(stop.stderr).toBe(
      `sandbox: the sandbox \`sandbox start --detach\` started from this folder (${ready.url}, process ${ready.pid}) is no longer running; nothing to stop\n`,
    );
    expect(await answers(other.url)).toBe(true);
    expect(existsSync(join(dir, '.sandbox', 'detached.json'))).toBe(false);
  });
});
