import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient, type ClockState } from '../../src/control/client.ts';
import { ControlSource } from '../../src/dashboard/control-source.ts';
import type { ConnectionStatus, DeliveryView, FeedItem, InitialState, SourceSink } from '../../src/dashboard/types.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS, testSandbox } from '../helpers/sandbox.ts';

/** Polls `check` with a bounded number of attempts (real sockets: no fixed sleeps). */
async function until<T>(check: () => T | undefined | false, what: string, deadlineMs = 30_000): Promise<T> {
  // a deadline in time, not a count of 10 ms turns: turns stretch on a loaded machine
  for (const end = Date.now() + deadlineMs; Date.now() < end; ) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function recordingSink() {
  const seen = {
    statuses: [] as ConnectionStatus[],
    initial: [] as InitialState[],
    items: [] as FeedItem[],
    deliveries: [] as DeliveryView[][],
    clocks: [] as ClockState[],
  };
  const sink: SourceSink = {
    status: (s) => seen.statuses.push(s),
    initial: (s) => seen.initial.push(s),
    feed: (item) => seen.items.push(item),
    deliveries: (list) => seen.deliveries.push(list),
    rateLimits: () => {},
    clock: (c) => seen.clocks.push(c),
  };
  return { sink, seen };
}

describe('control-plane source', () => {
  let sandbox: Sandbox | undefined;
  let stop: (() => void) | undefined;
  afterEach(async () => {
    stop?.();
    await sandbox?.stop();
  });

  it('loads the initial state, then streams requests with captured headers and bodies but never the key', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    const source = new ControlSource(new ControlClient({ url: sandbox.url }), { pollMs: 50 });
    const { sink, seen } = recordingSink();
    stop = source.start(sink);
    await until(() => seen.statuses.includes('live'), 'live');
    expect(seen.initial[0]!.requests.map((r) => r.path)).toEqual(['/v1/products?limit=1']);
    expect(Object.values(seen.initial[0]!.workspaceNames).length).toBeGreaterThan(0);
    await fetch(`${sandbox.url}/v1/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Glacier walk' }),
    });
    const item = await until(
      () => seen.items.find((i): i is Extract<FeedItem, { kind: 'request' }> => i.kind === 'request' && i.entry.method === 'POST'),
      'the POST',
    );
    const detail = item.entry.detail!;
    expect(detail.request.body).toContain('Glacier walk');
    expect(detail.request.headers.authorization).toBe(`Bearer ${item.entry.keyPrefix}…`);
    expect(JSON.stringify(detail)).not.toContain(KEYS.liveFull);
    expect(detail.response.headers['x-request-id']).toBe(item.entry.requestId);
    expect(detail.response.body).toBeTruthy();
    await until(() => seen.clocks.length > 0, 'a clock poll');
  });

  it('shows the JSON of a cached list, which goes out as bytes, not a byte count', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const source = new ControlSource(new ControlClient({ url: sandbox.url }), { pollMs: 50 });
    const { sink, seen } = recordingSink();
    stop = source.start(sink);
    await until(() => seen.statuses.includes('live'), 'live');
    await fetch(`${sandbox.url}/v1/products?limit=2`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    const item = await until(
      () => seen.items.find((i): i is Extract<FeedItem, { kind: 'request' }> => i.kind === 'request' && i.entry.path === '/v1/products?limit=2'),
      'the list',
    );
    const body = item.entry.detail!.response.body!;
    expect(body.startsWith('{"data":[')).toBe(true);
    expect(body).not.toMatch(/^\[\d+ bytes\]$/);
  });

  it('reports a sandbox that went away and reconnects when one answers again', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const port = Number(new URL(sandbox.url).port);
    const source = new ControlSource(new ControlClient({ url: sandbox.url }), { pollMs: 50, backoffMinMs: 20, backoffMaxMs: 100 });
    const { sink, seen } = recordingSink();
    stop = source.start(sink);
    await until(() => seen.statuses.includes('live'), 'live');
    await sandbox.stop();
    await until(() => seen.statuses.at(-1) === 'down', 'down');
    sandbox = await createSandbox({ port, clock: 'manual', storage: 'memory' });
    await until(() => seen.initial.length === 2 && seen.statuses.at(-1) === 'live', 'reconnected');
  });

  it('replays a delivery through the control plane', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const client = new ControlClient({ url: sandbox.url });
    const workspace = (await client.workspaces())[0]!;
    await client.ensureSubscription({ workspaceId: workspace.id, url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    const { deliveryIds } = await client.emitEvent({ workspaceId: workspace.id, type: 'booking.created' });
    const source = new ControlSource(client);
    const first = await until(() => deliveryIds[0], 'a delivery id');
    const replayed = await source.replay(first);
    expect(replayed.id).toBe(first);
    expect(replayed.attempts.at(-1)!.trigger).toBe('replay');
  });
});

describe('request capture', () => {
  it('captures /v1 requests while no one watches the stream, and nothing else', async () => {
    const t = await testSandbox();
    await t.request('POST', '/v1/products', { body: { name: 'x' } });
    await t.request('GET', '/nowhere', { key: null });
    const entries = (await t.request('GET', '/__sandbox/requests', { key: null })).json().data;
    expect(entries[0].path).toBe('/nowhere');
    expect(entries[0]).not.toHaveProperty('detail');
    expect(entries[1].detail.request.body).toBe('{"name":"x"}');
    await t.sandbox.stop();
  });
});
