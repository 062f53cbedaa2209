import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/control/client.ts';
import { json, useSandbox } from './harness.ts';

/**
 * Issue 38, point 4: webhook deliveries from the CLI. A receiver fails three
 * times and then accepts; `events list|show` show each attempt, `clock advance
 * --to-next` reaches each retry, and `events wait` advances until the delivery ends.
 */
const t = useSandbox();
let receiver: Server;
let base = '';
/** per path: how many requests it has had; each /flaky... path answers 500 three times, then 200; /down always 500 */
const hits = new Map<string, number>();
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    const n = (hits.get(req.url!) ?? 0) + 1;
    hits.set(req.url!, n);
    res.writeHead(req.url!.startsWith('/flaky') && n > 3 ? 200 : 500).end('x');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => receiver.close());

const client = () => new ControlClient({ url: t.sandbox.url });

/** A subscription of the sandbox-mode workspace to `path`, and one booking.created sent to it. */
async function deliveryTo(path: string, maxRetries: number): Promise<{ id: string; workspace: string }> {
  const workspace = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
  const { subscription } = await client().ensureSubscription({ workspaceId: workspace.id, url: `${base}${path}`, events: ['booking.created'], maxRetries });
  const triggered = json(await t.cli(['trigger', 'booking.created', '--workspace', workspace.name, '--json']));
  for (const id of triggered.deliveryIds as string[]) {
    const d = await client().delivery(id);
    if (d.subscriptionId === subscription.id) return { id, workspace: workspace.name };
  }
  throw new Error('no delivery to the subscription');
}

async function firstAttempt(id: string) {
  for (;;) {
    const d = await client().delivery(id);
    if (d.attempts.length > 0) return d;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('sandbox events', () => {
  it('list and show give every attempt with its status, reason and next retry; clock advance --to-next runs the retry', async () => {
    const { id, workspace } = await deliveryTo('/flaky', 5);
    const first = await firstAttempt(id);

    const listed = await t.cli(['events', 'list', '--status', 'pending', '--workspace', workspace, '--json']);
    expect(listed.code).toBe(0);
    expect(json(listed).map((d: { id: string }) => d.id)).toContain(id);
    const table = await t.cli(['events', 'list', '--status', 'pending', '--workspace', workspace]);
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+booking\\.created\\s+pending\\s+1/6\\s+500\\s+${first.nextAttemptAt}`));

    const shown = await t.cli(['events', 'show', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`1\\s+${first.attempts[0]!.at}\\s+initial\\s+500\\s+\\d+ms\\s+receiver answered 500\\s+${first.nextAttemptAt}`));

    const next = await t.cli(['clock', 'advance', '--to-next', '--workspace', workspace]);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(`webhook retry ${id} (booking.created)`);
    expect(next.stdout).toMatch(/^Advanced .+'s clock \d/);
    const after = await client().delivery(id);
    expect(after.attempts.map((a) => a.trigger)).toEqual(['initial', 'retry']);
    expect(after.attempts[1]!.at).toBe(first.nextAttemptAt);
    const nextJson = json(await t.cli(['clock', 'advance', '--to-next', '--workspace', workspace, '--json']));
    expect(nextJson.ran.map((r: { label: string }) => r.label)).toContain(`webhook retry ${id} (booking.created)`);
    expect(nextJson.ran[0].at).toBe(after.nextAttemptAt);
  });

  it('wait advances to each retry until the delivery succeeded, and exits 0', async () => {
    const { id } = await deliveryTo('/flaky-2', 5);
    const r = await t.cli(['events', 'wait', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${id} succeeded after 4 attempts \\(clock advanced \\d`));
    const d = await client().delivery(id);
    expect(d.status).toBe('succeeded');
    expect(d.attempts.map((a) => a.response?.status)).toEqual([500, 500, 500, 200]);
  });

  it('wait exits 1 with the reason once a delivery gives up, and stops at --timeout', async () => {
    const { id } = await deliveryTo('/down', 2);
    const bounded = await t.cli(['events', 'wait', id, '--timeout', '1s']);
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toMatch(new RegExp(`^sandbox: ${id} is still pending after 0s of sandbox time: its next retry, at \\S+, is past --timeout 1s\\n$`));

    const r = await t.cli(['events', 'wait', id, '--json']);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ id, status: 'failed' });
    expect(json(r).attempts).toHaveLength(3);
    expect(r.stderr).toMatch(new RegExp(`^sandbox: ${id} failed after 3 attempts \\(clock advanced .+\\): `));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('clock advance --to-next with nothing due says so and moves nothing', async () => {
    const live = t.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const before = (await client().workspaceClock(live.id)).nowMs;
    const r = await t.cli(['clock', 'advance', '--to-next', '--workspace', live.id]);
    expect(r.stdout).toMatch(/^Nothing is due on .+'s clock: no timer is pending/);
    expect((await client().workspaceClock(live.id)).nowMs).toBe(before);
  });
});
