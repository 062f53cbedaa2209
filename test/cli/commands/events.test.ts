import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/control/client.ts';
import { json, useSandbox } from './harness.ts';

/**
 * Webhook deliveries from the CLI. A receiver fails three
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

  it('wait exits 1 with the reason once a delivery gives up, and stops at --advance-up-to', async () => {
    const { id } = await deliveryTo('/down', 2);
    const bounded = await t.cli(['events', 'wait', id, '--advance-up-to', '1s']);
    expect(bounded.code).toBe(1);
    expect(bounded.stderr).toMatch(
      new RegExp(`^sandbox: ${id} is still pending after 0s of sandbox time: its next retry, at \\S+, is past --advance-up-to 1s\\n$`),
    );

    const r = await t.cli(['events', 'wait', id, '--json']);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ id, status: 'failed' });
    expect(json(r).attempts).toHaveLength(3);
    expect(r.stderr).toMatch(new RegExp(`^sandbox: ${id} failed after 3 attempts \\(clock advanced .+\\): `));
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('wait --timeout is wall time: on a manual clock it advances through retries far past it in sandbox time', async () => {
    const { id } = await deliveryTo('/flaky-3', 5);
    // the retries fall 5 s, 5 min and 30 min after each other (with jitter): past 30 s of sandbox time, well within 30 s of wall time
    const r = await t.cli(['events', 'wait', id, '--timeout', '30s']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${id} succeeded after 4 attempts \\(clock advanced 3\\dm `));
  });

  it('wait --timeout ends the wait in wall time while an attempt is in flight, and says where the delivery is', async () => {
    // a receiver that takes the request and never answers: the attempt stays in flight up to the sandbox's 10 s attempt timeout
    const held: ServerResponse[] = [];
    const silent = createServer((req, res) => {
      req.resume();
      held.push(res);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const workspace = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/silent`;
      const { subscription } = await client().ensureSubscription({ workspaceId: workspace.id, url, events: ['booking.created'], maxRetries: 1 });
      const triggered = json(await t.cli(['trigger', 'booking.created', '--workspace', workspace.name, '--json']));
      let id = '';
      for (const candidate of triggered.deliveryIds as string[]) if ((await client().delivery(candidate)).subscriptionId === subscription.id) id = candidate;
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 20)); // the attempt has reached the receiver

      const r = await t.cli(['events', 'wait', id, '--timeout', '1s']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `sandbox: ${id} is still pending after --timeout 1s (wall time): attempt 1 is in flight; \`sandbox events show ${id}\` shows where it is\n`,
      );
      // it ended before the attempt did: the attempt is still the receiver's to answer
      expect((await client().delivery(id)).attempts).toHaveLength(0);
    } finally {
      for (const res of held) res.writeHead(200).end();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('wait --help says which bound is wall time and which sandbox time, with the default docs/cli.md gives', async () => {
    const help = (await t.cli(['events', 'wait', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--timeout <duration> give up after this long, in wall time');
    expect(help).toContain("--advance-up-to <duration> the most sandbox time to advance the workspace's clock (default 10d 4h 48m:");
  });

  it('clock advance --to-next with nothing due says so and moves nothing', async () => {
    const live = t.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const before = (await client().workspaceClock(live.id)).nowMs;
    const r = await t.cli(['clock', 'advance', '--to-next', '--workspace', live.id]);
    expect(r.stdout).toMatch(/^Nothing is due on .+'s clock: no timer is pending/);
    expect((await client().workspaceClock(live.id)).nowMs).toBe(before);
  });
});
