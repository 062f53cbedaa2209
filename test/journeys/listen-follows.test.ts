import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, waitForStderr, waitForStdout, type Running } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * `sandbox listen` survives what a user does to the sandbox (docs/webhooks.md, "CLI"), as `stripe
 * listen` keeps forwarding: a `sandbox reset` takes its subscription away, and it makes it again
 * and says so; a sandbox stopped and started again on the same port is waited for and subscribed
 * to again; `--no-reconnect` ends instead; Ctrl+C always says what stopping did. Every process
 * is a real CLI process, the receiver a real HTTP server.
 */
interface Booked {
  type: string;
  data: { id: string };
}
let receiver: Server;
let receiverUrl = '';
const received: Booked[] = [];
const waiting: { id: string; resolve: () => void }[] = [];

beforeAll(async () => {
  receiver = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body) as Booked;
      received.push(event);
      for (const w of waiting.filter((w) => event.type === 'booking.created' && event.data.id === w.id)) w.resolve();
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
});
afterAll(() => new Promise((resolve) => receiver?.close(resolve)));

/** Resolves when the receiver has the booking.created of `id` (it may already have it). */
function forwarded(id: string): Promise<void> {
  if (received.some((e) => e.type === 'booking.created' && e.data.id === id)) return Promise.resolve();
  return new Promise((resolve) => waiting.push({ id, resolve }));
}

async function start(port: number): Promise<Running> {
  const run = runCli(['start', '--port', String(port), '--in-memory']);
  await waitForStdout(run, 'Ctrl+C stops it', 60_000);
  return run;
}
async function stop(run: Running): Promise<void> {
  if (run.child.exitCode === null) run.child.kill('SIGINT');
  await run.exit;
}

const DEPARTURE = 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac'; // the fixtures' bookable departure (the banner's)
async function book(url: string): Promise<string> {
  const res = await fetch(`${url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.sandboxFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ departureId: DEPARTURE, adults: 1 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const secretOf = (text: string): string[] => [...text.matchAll(/signing secret {2}(whsec_\S+)/g)].map((m) => m[1]!);

describe('journey: listen follows the sandbox', () => {
  it('after a reset, makes its subscription again in one line, prints the new secret, forwards again; Ctrl+C says it paused it', {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const sandbox = await start(port);
    const url = `http://127.0.0.1:${port}`;
    const listen = runCli(['listen', '--forward-to', receiverUrl], { SANDBOX_URL: url });
    try {
      await waitForStdout(listen, 'signing secret');
      const first = /subscription (whsub_[\w-]+) \(created\)/.exec(listen.output().stdout)![1]!;
      const before = await book(url);
      await forwarded(before);

      const reset = await runCli(['reset'], { SANDBOX_URL: url }).exit;
      expect(reset.code).toBe(0);
      await waitForStdout(listen, 'forwarding again through'); // with the new secret's line, in the same write
      const out = listen.output().stdout;
      const line = out.split('\n').find((l) => l.includes('forwarding again through'))!;
      expect(line).toContain(`subscription ${first} is gone`);
      const second = /forwarding again through (whsub_[\w-]+) \(created\)/.exec(line)![1]!;
      expect(second).not.toBe(first);
      const [oldSecret, newSecret] = secretOf(out);
      expect(newSecret).toBeDefined();
      expect(newSecret).not.toBe(oldSecret);

      const after = await book(url);
      await forwarded(after);

      listen.child.kill('SIGINT');
      const exit = await listen.exit;
      expect(exit.code).toBe(0);
      expect(exit.stderr).toBe(`Stopped: subscription ${second} is paused, so new events are not sent to it; no delivery was pending\n`);
    } finally {
      listen.child.kill('SIGKILL');
      await stop(sandbox);
    }
  });

  it('when the sandbox stops, says so and waits; a sandbox started again on the same port is subscribed to and forwarded', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let sandbox = await start(port);
    const listen = runCli(['listen', '--forward-to', receiverUrl], { SANDBOX_URL: url });
    try {
      await waitForStdout(listen, 'signing secret');
      await stop(sandbox);
      await waitForStdout(listen, `The sandbox at ${url} stopped; waiting for it to come back there`);
      expect(listen.child.exitCode).toBeNull();

      sandbox = await start(port);
      await waitForStdout(listen, `The sandbox at ${url} is back: forwarding through subscription`);
      const id = await book(url);
      await forwarded(id);

      // Ctrl+C while the sandbox is gone: still one line, and a clean exit
      await stop(sandbox);
      await waitForStdout(listen, 'stopped; waiting for it to come back there');
      listen.child.kill('SIGINT');
      const exit = await listen.exit;
      expect(exit.code).toBe(0);
      expect(exit.stderr).toMatch(new RegExp(`^Stopped; the sandbox at ${url} is not running, so subscription whsub_[\\w-]+ was left as it was\\n$`));
    } finally {
      listen.child.kill('SIGKILL');
      await stop(sandbox);
    }
  });

  it('Ctrl+C right after a reset still says, in one line, what stopping did', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const sandbox = await start(port);
    const listen = runCli(['listen', '--forward-to', receiverUrl], { SANDBOX_URL: url });
    try {
      await waitForStdout(listen, 'signing secret');
      expect((await runCli(['reset'], { SANDBOX_URL: url }).exit).code).toBe(0);
      listen.child.kill('SIGINT');
      const exit = await listen.exit;
      expect(exit.code).toBe(0);
      // whether listen had made its subscription again (paused now) or not yet (gone with the reset)
      expect(exit.stderr).toMatch(/^Stopped(: subscription whsub_[\w-]+ is paused|; subscription whsub_[\w-]+ is gone from the sandbox)[^\n]*\n$/);
    } finally {
      listen.child.kill('SIGKILL');
      await stop(sandbox);
    }
  });

  it('with --no-reconnect, exits 1 in one line when the sandbox stops', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const sandbox = await start(port);
    const listen = runCli(['listen', '--forward-to', receiverUrl, '--no-reconnect', '--json'], { SANDBOX_URL: url });
    try {
      await waitForStderr(listen, 'signing secret');
      await stop(sandbox);
      const exit = await listen.exit;
      expect(exit.code).toBe(1);
      expect(exit.stdout).toBe('');
      expect(exit.stderr.trim().split('\n').at(-1)).toBe(`sandbox: the sandbox at ${url} stopped, and listen stops with it (--no-reconnect)`);
    } finally {
      listen.child.kill('SIGKILL');
      await stop(sandbox);
    }
  });
});
