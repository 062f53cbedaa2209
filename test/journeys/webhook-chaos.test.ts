import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * Webhook chaos from the CLI, as an integrator drives it (docs/webhooks.md, "Testing your
 * receiver"): `sandbox start --clock manual` and `sandbox listen` in processes of their own, a
 * real receiver that checks every request with the standardwebhooks verifier, delivery fault
 * rules added with `fault add --delivery`, events sent with `trigger`, held ones released with
 * `clock advance --to-next`, `events wait` and `fault clear`, and the outcome read back with
 * `events list --json` and `verify --delivery`.
 */
interface Received {
  webhookId: string;
  type: string;
  eventId: string;
}
let sandbox: StartedSandbox;
let receiver: Server;
let url = '';
let secret = '';
const received: Received[] = [];
/** requests whose signature the verifier refused */
const refused: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(['--clock', 'manual']);
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      try {
        const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as { id: string; type: string };
        received.push({ webhookId: String(req.headers['webhook-id']), type: event.type, eventId: event.id });
      } catch (err) {
        refused.push(`${req.headers['webhook-id']}: ${(err as Error).message}`);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
}, 90_000);
afterAll(async () => {
  await sandbox?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const env = () => ({ SANDBOX_URL: sandbox.url });
async function cli(...args: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(args, env()).exit;
  expect(code, `sandbox ${args.join(' ')}: ${stderr}`).toBe(0);
  return stdout;
}
type Listed = {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: string;
  fault: { action: string; duplicateOf?: string; summary: string } | null;
};

describe('journey: a receiver under webhook chaos, from the CLI', () => {
  it('duplicates, a dropped first attempt and an outage reach a real receiver validly signed, and the CLI says which rule did what', {
    timeout: 180_000,
  }, async () => {
    const listen = runCli(['listen', '--forward-to', url, '--events', 'booking.*'], env());
    try {
      await waitForStdout(listen, 'signing secret');
      secret = /signing secret {2}(whsec_\S+)/.exec(listen.output().stdout)![1]!;

      const duplicate = await cli('fault', 'add', '--delivery', '--event', 'booking.created', '--duplicate', '--probability', '0.5', '--seed', '7');
      expect(duplicate).toMatch(
        /^Added fault_\w+: duplicate, at once after the first answer for deliveries of booking\.created, on each with probability 0\.5 \(seed 7\), until cleared/,
      );
      await cli('fault', 'add', '--delivery', '--event', 'booking.updated', '--drop');
      await cli('fault', 'add', '--delivery', '--event', 'booking.cancelled', '--hold-until', '10m');
      const rules = await cli('fault', 'list');
      expect(rules).toMatch(/deliveries of booking\.updated\s+drop the first attempt\s+1\s+0/);
      expect(rules).toMatch(/deliveries of booking\.cancelled\s+hold until \S+\s+all\s+0/);

      for (let i = 0; i < 6; i++) await cli('trigger', 'booking.created');
      await cli('trigger', 'booking.updated');
      const cancelled: string[] = [];
      for (let i = 0; i < 2; i++) cancelled.push((JSON.parse(await cli('trigger', 'booking.cancelled', '--json')) as { event: { id: string } }).event.id);

      // the next timer is the dropped update's retry, 5 s later; then the outage's end, which sends both cancellations
      expect(await cli('clock', 'advance', '--to-next')).toMatch(
        /ran 1 timer:\n\s+\S+\s+webhook retry dlv_\S+ \(booking\.updated\)\nNext: webhook delivery dlv_\S+ \(booking\.cancelled, held by fault_\w+\)/,
      );
      expect(received.filter((r) => r.type === 'booking.cancelled')).toEqual([]);
      expect(await cli('clock', 'advance', '--to-next')).toMatch(
        /ran 2 timers:\n.*booking\.cancelled, held by fault_\w+\)\n.*booking\.cancelled, held by fault_\w+\)/,
      );
      // nothing is left to wait for
      expect(await cli('events', 'wait')).toMatch(/^(No delivery was pending|\d+ deliveries succeeded)/m);

      const deliveries = JSON.parse(await cli('events', 'list', '--json')) as Listed[];
      const duplicates = deliveries.filter((d) => d.fault?.duplicateOf);
      expect(duplicates.length).toBeGreaterThan(0);
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
      // every extra request the receiver got is a duplicate a rule made, with its original's webhook-id
      const perWebhookId = new Map<string, number>();
      for (const r of received) perWebhookId.set(r.webhookId, (perWebhookId.get(r.webhookId) ?? 0) + 1);
      expect(received).toHaveLength(9 + duplicates.length);
      for (const d of duplicates) expect(perWebhookId.get(d.webhookId), d.fault!.summary).toBe(2);
      expect([...perWebhookId.values()].filter((n) => n > 1)).toHaveLength(duplicates.length);
      expect(refused).toEqual([]);

      const dropped = deliveries.find((d) => d.fault?.action === 'drop')!;
      expect(dropped.fault!.summary).toMatch(/^first attempt dropped by fault_\w+/);
      expect((await cli('events', 'show', dropped.id)).split('\n')[1]).toMatch(/^fault: first attempt dropped by fault_\w+/);
      const held = deliveries.filter((d) => d.fault?.action === 'hold');
      expect(held.map((d) => d.fault!.summary)).toEqual([expect.stringMatching(/^held 10m by fault_\w+ \(an outage\)/), expect.stringMatching(/^held 10m/)]);
      // the two cancellations arrived in the order they were made, once the outage ended
      expect(received.filter((r) => r.type === 'booking.cancelled').map((r) => r.eventId)).toEqual(cancelled);

      const verified = await cli('verify', '--delivery', '--fault', 'duplicate', '--status', '2xx', '--count', String(duplicates.length));
      expect(verified.trim()).toBe(`${duplicates.length} of ${duplicates.length} duplicate deliveries answered 2xx; expected exactly ${duplicates.length}`);
      await cli('verify', '--delivery', '--fault', 'drop', '--status', '2xx', '--count', '1');
      // the drop fired its once, the outage has ended: the duplicate rule is what is left
      expect((await cli('fault', 'clear')).trim()).toBe('Removed 1 fault rule');
    } finally {
      listen.child.kill('SIGINT');
      await listen.exit;
    }
  });
});
