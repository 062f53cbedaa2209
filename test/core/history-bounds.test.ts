import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { EventBus } from '../../src/core/events.ts';
import { IDEMPOTENCY, Idempotency, IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_TRIM_BATCH } from '../../src/core/idempotency.ts';
import { RequestLog } from '../../src/core/request-log.ts';
import { createSandbox } from '../../src/index.ts';
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
      await store.commit([...outbox.trimOps('ws', rows.length), ...rows.map((row) => ({ type: 'put' as const, collection: WEBHOOK_DELIVERIES.name, workspaceId: 'ws', row }))]);
      expect(store.list(WEBHOOK_DELIVERIES.name, 'ws').length).toBeLessThanOrEqual(DELIVERY_LOG_LIMIT + 100);
    }
    const ids = WEBHOOK_DELIVERIES.in(store).list('ws').map((d) => d.id);
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

  it('a stream client that stops reading is disconnected instead of buffered without end', async () => {
    const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    try {
      const socket = connect(sandbox.port, '127.0.0.1');
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      let isClosed = false;
      void closed.then(() => (isClosed = true));
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // the stream is open (and subscribed to the bus) once its `hello` frame arrives; no fixed sleep (issue 28)
      const hello = new Promise<void>((resolve) => {
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen += chunk.toString('utf8');
          if (seen.includes('event: hello')) {
            socket.off('data', onData);
            resolve();
          }
        };
        socket.on('data', onData);
      });
      socket.write(`GET /__sandbox/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      await hello;
      socket.pause(); // never read again: the kernel buffers fill, then the server's
      const payload = { big: 'x'.repeat(64 * 1024) };
      for (let i = 0; i < 400 && !isClosed; i++) {
        sandbox.events.emit('reset', payload as never);
        await new Promise((resolve) => setImmediate(resolve));
      }
      // up to 25 MB were sent to a client that read none of it: the server has given up on it.
      // Reading what the kernel buffered takes longer on a loaded machine: a generous deadline.
      socket.resume();
      const outcome = await Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 30_000).unref())]);
      socket.destroy();
      expect(outcome).toBe('closed');
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
