import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/control/client.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

/**
 * `sandbox fault add --delivery`, and what the other commands show of it: `fault list`, `events
 * list|show|wait`, `clock advance --to-next`, `fault clear` and `verify --delivery`, against a
 * receiver that records the webhook-id of every request it gets.
 */
const t = useSandbox();
let receiver: Server;
let url = '';
const received: { webhookId: string; type: string }[] = [];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      received.push({ webhookId: String(req.headers['webhook-id']), type: (JSON.parse(body) as { type: string }).type });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => receiver.close());

let workspace = { id: '', name: '' };
beforeAll(async () => {
  workspace = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
  await new ControlClient({ url: t.sandbox.url }).ensureSubscription({ workspaceId: workspace.id, url, events: ['booking.*'], maxRetries: 2 });
});

const cli = (...args: string[]) => t.cli(args);
const trigger = async (type: string) => json(await cli('trigger', type, '--workspace', workspace.name, '--json')).deliveryIds[0] as string;

describe('sandbox fault add --delivery', () => {
  it('duplicates: fault list says so, events wait follows the duplicates, events list|show name them, verify counts them', async () => {
    const added = await cli('fault', 'add', '--delivery', '--duplicate', '--latency', '1s', '--times', '2', '--workspace', workspace.name);
    expect(added.code, added.stderr).toBe(0);
    const id = /Added (fault_\w+)/.exec(added.stdout)![1]!;
    expect(added.stdout).toContain(`duplicate, 1s after the first answer for deliveries of * in workspace ${workspace.id}, on the next 2 ones`);
    expect((await cli('fault', 'list')).stdout).toMatch(
      new RegExp(`${id}\\s+deliveries of \\* in workspace ${workspace.id}\\s+duplicate, 1s after the first answer\\s+2\\s+0`),
    );

    const first = await trigger('booking.created');
    await trigger('booking.updated');
    await trigger('booking.cancelled');
    // the duplicates wait for the clock: events wait advances it, and follows them until they are answered
    const waited = await cli('events', 'wait', '--workspace', workspace.name);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/\d deliveries succeeded \(clock advanced 1s\)/);
    expect(received.slice(3).map((r) => r.type)).toEqual(['booking.created', 'booking.updated']);
    expect(received.map((r) => r.type).sort()).toEqual(['booking.cancelled', 'booking.created', 'booking.created', 'booking.updated', 'booking.updated']);
    expect(received[3]!.webhookId).toBe(first);

    const list = (await cli('events', 'list', '--workspace', workspace.name)).stdout;
    expect(list).toMatch(/FAULT/);
    expect(list).toContain(`duplicate of ${first}, made by ${id}`);
    const duplicate = json(await cli('events', 'list', '--workspace', workspace.name, '--json')).find(
      (d: { fault: { duplicateOf?: string } | null }) => d.fault?.duplicateOf === first,
    );
    expect(duplicate).toMatchObject({ webhookId: first, maxAttempts: 1, status: 'succeeded' });
    expect((await cli('events', 'show', duplicate.id)).stdout).toContain(`fault: duplicate of ${first}, made by ${id}`);

    const verified = await cli('verify', '--delivery', '--fault', 'duplicate', '--status', '2xx', '--count', '2', '--workspace', workspace.name);
    expect(verified.stdout.trim()).toBe(`2 of 2 duplicate deliveries answered 2xx in ${workspace.id}; expected exactly 2`);
    const wrong = await cli('verify', '--delivery', '--fault', 'duplicate', '--count', '3', '--workspace', workspace.name);
    expect(expectOneLineFailure(wrong)).toBe(`sandbox: 2 of 2 duplicate deliveries in ${workspace.id}; expected exactly 3`);
  });

  it('reorder and hold-until: clock advance --to-next releases the held one; fault clear sends what an outage holds, in order', async () => {
    received.length = 0;
    await cli('fault', 'add', '--delivery', '--reorder', '1h', '--event', 'booking.created', '--workspace', workspace.name);
    await trigger('booking.created');
    await trigger('booking.updated');
    await cli('events', 'wait', '--workspace', workspace.name, '--advance-up-to', '1s').catch(() => undefined);
    const next = await cli('clock', 'advance', '--to-next', '--workspace', workspace.name);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toMatch(/ran 1 timer:\n\s+\S+\s+webhook delivery dlv_\S+ \(booking\.created, held by fault_\w+\)/);
    expect(received.map((r) => r.type)).toEqual(['booking.updated', 'booking.created']);

    const outage = await cli('fault', 'add', '--delivery', '--hold-until', '10m', '--workspace', workspace.name);
    expect(outage.stdout).toMatch(/hold until \S+ for deliveries of \*.*, on each until the hold ends \(or fault clear\)/);
    await trigger('booking.cancelled');
    await trigger('booking.updated');
    expect(received).toHaveLength(2);
    const cleared = await cli('fault', 'clear');
    expect(cleared.stdout.trim()).toBe('Removed 1 fault rule; sent the 2 deliveries they held, in order');
    expect(received.map((r) => r.type).slice(2)).toEqual(['booking.cancelled', 'booking.updated']);
  });

  it('refuses, in the flags typed, a rule that mixes request and delivery flags or does two things', async () => {
    expect(expectOneLineFailure(await cli('fault', 'add', '--delivery', '--status', '500'))).toBe(
      'sandbox: --status: for request rules; a --delivery rule matches by --event, --subscription and --workspace',
    );
    expect(expectOneLineFailure(await cli('fault', 'add', '--duplicate'))).toBe('sandbox: --duplicate: for delivery rules; add --delivery');
    expect(expectOneLineFailure(await cli('fault', 'add', '--delivery', '--drop', '--reorder', '2s'))).toMatch(/does one thing: .*; not --reorder and --drop$/);
    expect(expectOneLineFailure(await cli('fault', 'add', '--latency', '5m'))).toBe(
      `sandbox: --latency takes a duration from 0 to 2m; "5m" is more (a --delivery rule's is sandbox time, up to 7d)`,
    );
  });
});
