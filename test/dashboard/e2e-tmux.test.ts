import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';

/**
 * `sandbox start --dashboard` under a real pseudo-terminal: tmux runs it, we
 * send a request and read the screen with capture-pane. Skipped, with a
 * message, only when tmux is not installed.
 */
const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
if (!hasTmux) console.warn('skipping the dashboard end-to-end test: tmux is not installed (apt-get install tmux)');

const SOCKET = `sandbox-e2e-${process.pid}`;
const SESSION = 'dash';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', SESSION).stdout ?? '';

/** Polls `check` a bounded number of times (the process needs real time to start). */
async function until<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, attempts = 300): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
}

describe.skipIf(!hasTmux)('sandbox start --dashboard in a terminal (tmux)', () => {
  afterAll(() => {
    tmux('kill-server');
  });

  it('shows a request on screen, and q stops the sandbox', async () => {
    const command = `cd ${JSON.stringify(ROOT)} && NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} start --dashboard --in-memory --port 0`;
    execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', 'new-session', '-d', '-s', SESSION, '-x', '100', '-y', '30', command]);
    const url = await until(() => /(http:\/\/127\.0\.0\.1:\d+)\s.*● live/.exec(screen())?.[1], 'the dashboard header');
    const res = await fetch(`${url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    expect(res.status).toBe(200);
    const line = await until(() => screen().split('\n').find((l) => l.includes('/v1/products?limit=1')), 'the request row');
    expect(line).toMatch(/GET\s+\/v1\/products\?limit=1\s+200\s/);
    tmux('send-keys', '-t', SESSION, 'q');
    await until(() => tmux('has-session', '-t', SESSION).status !== 0, 'the session to end');
    await until(() => fetch(`${url}/__sandbox/health`).then(() => false, () => true), 'the sandbox to stop');
  }, 60_000);
});
