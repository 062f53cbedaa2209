import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { EventBus } from '../../src/core/events.ts';
import { IDEMPOTENCY, Idempotency, IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_TRIM_BATCH } from '../../src/core/idempotency.ts';
import { CAPTURE_OVERHEAD_BYTES, DEFAULT_CAPTURE_BYTES, RequestLog } from '../../src/core/request-log.ts';
import { createSandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { openStore } from '../../src/storage/index.ts';
import type { Row } from '../../src/storage/types.ts';
import { DELIVERY_LOG_LIMIT, Outbox, WEBHOOK_DELIVERIES, type Delivery } from '../../src/webhooks/outbox.ts';

/** Every in-memory history has a bound (docs/benchmarks.md, "Memory"). */
describe('bounded histories', () => {
  it('the idempotency store keeps at most its bound per workspace, dropping the oldest keys', async () => {
    const { store } = await openStore({});
    const idem = new Idempotency(store, new Clock('manual', 0));
    const total = IDEMPOTENCY_MAX_KEYS + 2 * IDEMPOTENCY_TRIM_BATCH + 17;
    let most = 0;
    for (let i = 0; i < total; i++) {
      for (const ws of ['a', 'b']) {
        idem.begin(ws, `key-${i}`, 'POST', '/v1/forms', { i });
        await idem.finish(ws, `key-${i}`, 'POST', '/v1/forms', { i }, 201, '{}');
      }
      most = Math.max(most, store.list(IDEMPOTENCY.name, 'a').length);
    }
    expect(most).toBeLessThanOrEqual(IDEMPOTENCY_MAX_KEYS + IDEMPOTENCY_TRIM_BATCH);
    for (const ws of ['a', 'b']) {
      expect(store.list(IDEMPOTENCY.name, ws).length).toBeLessThanOrEqual(IDEMPOTENCY_MAX_KEYS + IDEMPOTENCY_TRIM_BATCH);
      // the newest keys still replay; the oldest were dropped
      expect(idem.begin(ws, `key-${total - 1}`, 'POST', '/v1/forms', { i: total - 1 }).kind).toBe('replay');
      expect(idem.begin(ws, 'key-0', 'POST', '/v1/forms', { i: 0 }).kind).toBe('new');
    }
  });

  it('the delivery log drops the oldest finished deliveries, never pending ones', async () => {
    const { store } = await openStore({});
    const outbox = new Outbox(store);
    const delivery = (i: number, status: Delivery['status']): Row =>
      ({ id: `dlv_${i}`, workspaceId: 'ws', status, attempts: [], createdAt: new Date(i * 1000).toISOString() }) as unknown as Row;
    const pending = new Set([0, 5, 10]);
    let next = 0;
    for (let round = 0; round < 30; round++) {
      const rows = Array.from({ length: 100 }, () => next++).map((i) => delivery(i, pending.has(i) ? 'pending' : 'failed'));
      await store.commit([
        ...outbox.trimOps('ws', rows.length),
        ...rows.map((row) => ({ type: 'put' as const, collection: WEBHOOK_DELIVERIES.name, workspaceId: 'ws', row })),
      ]);
      expect(store.list(WEBHOOK_DELIVERIES.name, 'ws').length).toBeLessThanOrEqual(DELIVERY_LOG_LIMIT + 100);
    }
    const ids = WEBHOOK_DELIVERIES.in(store)
      .list('ws')
      .map((d) => d.id);
    for (const i of pending) expect(ids).toContain(`dlv_${i}`);
    expect(ids).toContain(`dlv_${next - 1}`);
    expect(ids).not.toContain('dlv_1');
  });

  it('the request log keeps at most twice its capacity, with details on the newest only', () => {
    const bus = new EventBus();
    const log = new RequestLog(bus, 100);
    for (let i = 0; i < 1_000; i++) bus.emit('request', { id: `req_${i}`, detail: { big: 'x'.repeat(100) } } as never);
    expect(log.recent(1_000).length).toBeLessThanOrEqual(100);
    expect((log as unknown as { entries: unknown[] }).entries.length).toBeLessThan(200);
  });

  it("the request log's captures stay within their byte bound, the oldest leaving first", () => {
    const log = new RequestLog(new EventBus(), 1000, 100_000);
    const render = () => ({ request: { headers: {}, body: null, truncated: false }, response: { headers: {}, body: null, truncated: false } });
    for (let i = 0; i < 50; i++) {
      log.keepDetail(`req_${i}`, render, 20_000); // a 20 KB body each
      expect(log.keptCaptureBytes).toBeLessThanOrEqual(100_000);
    }
    const kept = (id: string) => log.withDetail({ requestId: id } as never).detail !== undefined;
    expect(kept('req_49')).toBe(true);
    expect(kept('req_45')).toBe(false);
    // each costs its 20,000 bytes and 1,024 of overhead: four (84,096 bytes) fit in 100,000, five (105,120) do not
    expect(CAPTURE_OVERHEAD_BYTES).toBe(1024);
    expect([...Array(50).keys()].filter((i) => kept(`req_${i}`))).toEqual([46, 47, 48, 49]);
    log.keepDetail('huge', render, 1_000_000); // larger than the bound alone: not kept, the others stay
    expect(kept('huge')).toBe(false);
    expect(kept('req_49')).toBe(true);
  });

  it('the request log keeps 8 MB of captures by default; requestCaptureBytes sets it', async () => {
    expect(DEFAULT_CAPTURE_BYTES).toBe(8 * 1024 * 1024);
    const sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', requestCaptureBytes: 3000 });
    try {
      const unwatch = sandbox.context.requestLog.watch();
      const big = { name: 'x'.repeat(4000) };
      await sandbox.app.inject({ method: 'POST', url: '/v1/forms', headers: { authorization: `Bearer ${KEYS.sandboxFull}` }, payload: big });
      expect(sandbox.context.requestLog.keptCaptureBytes).toBe(0); // 4 KB alone is past a 3,000-byte bound
      await sandbox.app.inject({ method: 'GET', url: '/v1/nope', headers: { authorization: `Bearer ${KEYS.sandboxFull}` } });
      expect(sandbox.context.requestLog.keptCaptureBytes).toBeGreaterThan(0);
      expect(sandbox.context.requestLog.keptCaptureBytes).toBeLessThanOrEqual(3000);
      unwatch();
    } finally {
      await sandbox.stop();
    }
  });

  it('a stream client that stops reading is not buffered without end: its writes are dropped, and it is told how many', async () => {
    const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    try {
      const socket = connect(sandbox.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      let received = 0;
      let tail = '';
      let hello!: () => void;
      const helloSeen = new Promise<void>((resolve) => (hello = resolve));
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        tail = (tail + chunk.toString('latin1')).slice(-4096);
        if (tail.includes('event: hello')) hello();
      });
      socket.write(`GET /__sandbox/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      // the stream is open (and subscribed to the bus) once its `hello` frame arrives; no fixed sleep
      await helloSeen;
      socket.pause(); // never read: the kernel buffers fill, then the server's
      const payload = { big: 'x'.repeat(64 * 1024) };
      const sent = 1000; // 64 MB
      for (let i = 0; i < sent; i++) {
        sandbox.events.emit('reset', payload as never);
        await new Promise((resolve) => setImmediate(resolve));
      }
      socket.resume();
      // it reads again: it gets what was buffered (bounded), then, with the next write, how many it missed
      const deadline = Date.now() + 30_000;
      while (!/: dropped \d+ events/.test(tail) && Date.now() < deadline) {
        sandbox.events.emit('reset', { at: 'later' } as never);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const dropped = Number(/: dropped (\d+) events/.exec(tail)?.[1] ?? 0);
      expect(dropped).toBeGreaterThan(0);
      // far less than the 64 MB sent: the kernel's buffers, the server's 1 MB, one write
      expect(received).toBeLessThan((sent - dropped + 20) * 70 * 1024);
      expect(received).toBeLessThan(32 * 1024 * 1024);
      expect(socket.destroyed).toBe(false); // still connected: it goes on with live events
      socket.destroy();
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
