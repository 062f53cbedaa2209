import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { BIN } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';

/**
 * `sandbox start --dashboard` under a real pseudo-terminal: tmux runs it, we
 * drive live traffic of every kind at it and read the screen with
 * capture-pane. Skipped, with a message, only when tmux is not installed.
 */
const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
if (!hasTmux) console.warn('skipping the dashboard end-to-end test: tmux is not installed (apt-get install tmux)');

const SOCKET = `sandbox-e2e-${process.pid}`;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screenOf = (session: string) => () => tmux('capture-pane', '-p', '-t', session).stdout ?? '';

/** Polls `check` a bounded number of times (the process needs real time to start). */
async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  screen: () => string,
  attempts = 300,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
}

function startDashboard(session: string, size: { x: number; y: number }, extra = ''): void {
  const command = `cd ${JSON.stringify(ROOT)} && NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} start --dashboard --in-memory --port 0 ${extra}`;
  execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', 'new-session', '-d', '-s', session, '-x', String(size.x), '-y', String(size.y), command]);
}

/** A webhook receiver: /ok answers 200; /flaky answers 500 once per delivery id, then 200. */
async function receiver(): Promise<{ url: string; server: Server }> {
  const failedOnce = new Set<string>();
  const server = createServer((req, res) => {
    req.resume();
    const id = String(req.headers['webhook-id']);
    const fail = req.url === '/flaky' && !failedOnce.has(id);
    if (fail) failedOnce.add(id);
    res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' }).end(fail ? '{"ok":false}' : '{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe.skipIf(!hasTmux)('sandbox start --dashboard in a terminal (tmux)', () => {
  const servers: Server[] = [];
  afterAll(() => {
    tmux('kill-server');
    for (const s of servers) s.close();
  });

  it('shows a request on screen, and q stops the sandbox', async () => {
    const screen = screenOf('plain');
    startDashboard('plain', { x: 100, y: 30 });
    const url = await until(() => /(http:\/\/127\.0\.0\.1:\d+)\s.*● live/.exec(screen())?.[1], 'the dashboard header', screen);
    const res = await fetch(`${url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    expect(res.status).toBe(200);
    const line = await until(
      () =>
        screen()
          .split('\n')
          .find((l) => l.includes('/v1/products?limit=1')),
      'the request row',
      screen,
    );
    expect(line).toMatch(/GET\s+\/v1\/products\?limit=1\s+200\s/);
    tmux('send-keys', '-t', 'plain', 'q');
    await until(() => tmux('has-session', '-t', 'plain').status !== 0, 'the session to end', screen);
    await until(
      () =>
        fetch(`${url}/__sandbox/health`).then(
          () => false,
          () => true,
        ),
      'the sandbox to stop',
      screen,
    );
  }, 60_000);

  it('survives live traffic of every kind (deliveries that succeed, fail and retry, 429s, revoked keys, faults, clock moves) and q still quits', async () => {
    const session = 'live';
    const screen = screenOf(session);
    const hooks = await receiver();
    servers.push(hooks.server);
    startDashboard(session, { x: 160, y: 50 }, '--clock manual');
    const url = await until(() => /(http:\/\/127\.0\.0\.1:\d+)\s.*● live/.exec(screen())?.[1], 'the dashboard header', screen);
    const client = new ControlClient({ url });
    const [aurora, borealis] = await client.workspaces();
    const call = (key: string, path: string) => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

    // webhook deliveries: one that succeeds at once, one that fails, then succeeds on its retry
    await client.ensureSubscription({ workspaceId: aurora!.id, url: `${hooks.url}/ok`, events: ['booking.created'] });
    await client.ensureSubscription({ workspaceId: aurora!.id, url: `${hooks.url}/flaky`, events: ['booking.cancelled'] });
    await client.emitEvent({ workspaceId: aurora!.id, type: 'booking.created' });
    await client.emitEvent({ workspaceId: aurora!.id, type: 'booking.cancelled' });
    await until(() => /booking\.created\s+http\S+\s+1\/\d+\s+succeeded\s+200/.test(screen()), 'a delivery that succeeded', screen);
    await until(() => /booking\.cancel\S*\s+http\S+\s+1\/\d+\s+pending\s+500/.test(screen()), 'a delivery that failed and waits for its retry', screen);

    // the clock moves: the retry falls due and succeeds; the header shows the new sandbox time
    const before = await client.clock();
    await client.advanceClock(3_600_000);
    await until(() => /booking\.cancel\S*\s+http\S+\s+2\/\d+\s+succeeded\s+200/.test(screen()), 'the retry that succeeded', screen);
    const later = new Date(before.nowMs + 3_600_000).toISOString().slice(11, 16);
    await until(() => screen().includes(`clock ${later}`), 'the moved clock in the header', screen);

    // rate-limit hits: the sandbox workspace allows a burst of 5 per second, and the manual clock stands still
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await call(KEYS.sandboxFull, `/v1/products?limit=1&n=${i}`));
    expect(statuses).toContain(429);
    await until(() => /GET\s+\/v1\/products\?limit=1&n=7\s+429/.test(screen()), 'a 429 row', screen);

    // key revocation: the revoked key gets 401
    const created = await client.createKey(aurora!.id, { name: 'e2e' });
    await client.revokeKey(created.id);
    expect(await call(created.key, '/v1/products?revoked=1')).toBe(401);
    await until(() => /GET\s+\/v1\/products\?revoked=1\s+401/.test(screen()), 'the 401 of a revoked key', screen);

    // faults: an injected 503
    await client.addFault({ path: '/v1/bookings', status: 503 });
    expect(await call(KEYS.liveFull, '/v1/bookings')).toBe(503);
    await until(() => /GET\s+\/v1\/bookings\s+503/.test(screen()), 'the injected 503', screen);

    // the events panel lists what happened, and nothing crashed the screen
    expect(screen()).toMatch(/booking\.cancelled/);
    expect(screen()).not.toMatch(/ERROR|Cannot read properties|could not draw/);
    expect(borealis).toBeDefined();

    tmux('send-keys', '-t', session, 'q');
    await until(() => tmux('has-session', '-t', session).status !== 0, 'the session to end', screen);
    await until(
      () =>
        fetch(`${url}/__sandbox/health`).then(
          () => false,
          () => true,
        ),
      'the sandbox to stop',
      screen,
    );
  }, 90_000);
});
