import { afterEach, describe, expect, it } from 'vitest';
import { ControlClient, type StreamEvent } from '../../src/control/client.ts';
import { decodeStreamEvent, encodeStreamEvent, STREAM_EVENT_SCHEMAS } from '../../src/core/stream-events.ts';
import { toFeedItem } from '../../src/dashboard/control-source.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';

async function until<T>(check: () => T | undefined | false, what: string, deadlineMs = 30_000): Promise<T> {
  // a deadline in time, not a count of 10 ms turns: turns stretch on a loaded machine
  for (const end = Date.now() + deadlineMs; Date.now() < end; ) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the stream-event schema shared by the server and the dashboard', () => {
  let sandbox: Sandbox | undefined;
  const controller = new AbortController();
  afterEach(async () => {
    controller.abort();
    await sandbox?.stop();
  });

  it('reads every kind of event a real sandbox sends: requests, domain events, delivery attempts, rate-limit changes, resets', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const client = new ControlClient({ url: sandbox.url });
    const received: StreamEvent[] = [];
    void (async () => {
      for await (const event of client.stream(controller.signal)) received.push(event);
    })().catch(() => undefined);
    await until(() => received.some((e) => e.event === 'hello'), 'hello');
    const workspace = (await client.workspaces())[0]!;
    await client.ensureSubscription({ workspaceId: workspace.id, url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    await client.emitEvent({ workspaceId: workspace.id, type: 'booking.created' });
    await until(() => received.some((e) => e.event === 'delivery'), 'a delivery attempt');
    await client.reset();
    await until(() => received.some((e) => e.event === 'reset'), 'a reset');
    const names = new Set(received.map((e) => e.event));
    // every event but `requests`, which only a client asking ?requests=batched gets (test/control/observe.test.ts)
    expect([...names].sort()).toEqual(
      Object.keys(STREAM_EVENT_SCHEMAS)
        .filter((name) => name !== 'requests')
        .sort(),
    );
    for (const e of received) expect(decodeStreamEvent(e.event, e.data), `${e.event}: ${e.data}`).toMatchObject({ ok: true });
    const delivery = decodeStreamEvent('delivery', received.find((e) => e.event === 'delivery')!.data);
    expect(delivery).toMatchObject({ ok: true, payload: { attempt: 1, trigger: 'initial', responseStatus: null, status: 'pending' } });
  });

  it('never throws on an unknown or malformed event: it is skipped with a reason', () => {
    expect(decodeStreamEvent('mystery', '{}')).toEqual({ ok: false, event: 'mystery', reason: 'unknown event' });
    expect(decodeStreamEvent('delivery', 'not json')).toMatchObject({ ok: false, reason: 'not JSON' });
    expect(decodeStreamEvent('delivery', '{"id":"dlv_1"}')).toMatchObject({ ok: false });
    expect(decodeStreamEvent('request', 'null')).toMatchObject({ ok: false });
    expect(toFeedItem({ event: 'delivery', data: '{"attempts":"no"}' })).toMatchObject({ kind: 'skipped', event: 'delivery' });
    expect(toFeedItem({ event: 'hello', data: '{"now":"2026-01-01T00:00:00Z","clock":"manual"}' })).toBeNull();
  });

  it('keeps a field the server adds without breaking the event (it is dropped on decoding)', () => {
    const frame = encodeStreamEvent('reset', { at: '2026-01-01T00:00:00.000Z' });
    expect(frame).toBe('event: reset\ndata: {"at":"2026-01-01T00:00:00.000Z"}\n\n');
    expect(decodeStreamEvent('reset', '{"at":"x","extra":1}')).toEqual({ ok: true, event: 'reset', payload: { at: 'x' } });
  });
});
