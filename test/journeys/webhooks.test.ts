import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * Webhooks follow the user's key. `sandbox listen` (no --workspace) and a
 * booking made with the README's key, in processes of their own over real sockets; the receiver
 * verifies the signature with `standardwebhooks`, as the reader's app would. Then the receiver
 * fails, listen is stopped with Ctrl+C, and the delivery left pending is cancelled.
 */
interface Received {
  headers: Record<string, string>;
  body: string;
}
let sandbox: StartedSandbox;
let receiver: Server;
let receiverUrl = '';
const received: Received[] = [];
let answer = 200;

beforeAll(async () => {
  sandbox = await startSandbox();
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
}, 90_000);
afterAll(async () => {
  await sandbox?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const departure = (banner: string) => /bookable\s+(dept_[\w-]+)/.exec(banner)?.[1] ?? 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac';
async function book(): Promise<string> {
  const res = await fetch(`${sandbox.url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.sandboxFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ departureId: departure(sandbox.banner), adults: 1 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}
async function until(done: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 20_000; !done(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
  }
}
const bookingCreated = (id: string) => (r: Received) =>
  (JSON.parse(r.body) as { type: string; data: { id: string } }).type === 'booking.created' && JSON.parse(r.body).data.id === id;

describe('journey: listen plus a booking with the README key', () => {
  it("forwards the key's workspace, signed with the secret listen printed; stopping listen cancels what is pending", { timeout: 120_000 }, async () => {
    const listen = runCli(['listen', '--forward-to', receiverUrl], { SANDBOX_URL: sandbox.url });
    try {
      await waitForStdout(listen, 'signing secret');
      const banner = listen.output().stdout;
      // one line: which workspace, and that each workspace has its own secret
      expect(banner).toMatch(/workspace {2}Borealis Adventures \(sandbox\) \(wksp_[\w-]+\).*each workspace has its own subscription and signing secret/);
      const secret = /signing secret {2}(whsec_\S+)/.exec(banner)![1]!;
      const subscription = /subscription (whsub_[\w-]+)/.exec(banner)![1]!;

      // --print-secret prints the same secret and names the workspace
      const printed = await runCli(['listen', '--forward-to', receiverUrl, '--print-secret'], { SANDBOX_URL: sandbox.url }).exit;
      expect(printed.stdout.trim()).toBe(secret);
      expect(printed.stderr).toContain('Borealis Adventures (sandbox)');

      const first = await book();
      await until(() => received.some(bookingCreated(first)), `booking.created for ${first} at the receiver`);
      const delivery = received.find(bookingCreated(first))!;
      // the receiver's check, with the secret listen printed (throws on a bad signature)
      const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as { workspace_id: string };
      expect(banner).toContain(payload.workspace_id);

      // the receiver fails: the delivery stays pending, with a retry to come
      answer = 500;
      const second = await book();
      await until(() => received.some(bookingCreated(second)), `the failed attempt for ${second}`);
      await waitForStdout(listen, 'next retry');
      listen.child.kill('SIGINT');
      expect((await listen.exit).code).toBe(0);

      const res = await fetch(`${sandbox.url}/__sandbox/deliveries?subscriptionId=${subscription}&limit=500`);
      const deliveries = ((await res.json()) as { data: { status: string; reason: string | null; attempts: { response: { status: number } | null }[] }[] })
        .data;
      const failed = deliveries.filter((d) => d.attempts.some((a) => a.response?.status === 500));
      expect(failed.length).toBeGreaterThan(0);
      for (const d of failed) expect(d).toMatchObject({ status: 'cancelled', reason: 'subscription paused' });
      expect(deliveries.filter((d) => d.status === 'pending')).toEqual([]);
    } finally {
      listen.child.kill('SIGKILL');
    }
  });
});
