import { getEventListeners } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitDomainEvent } from '../../src/core/events.ts';
import { ATTEMPT_ERRORS, send } from '../../src/webhooks/delivery.ts';
import { DELIVERY_LOG_LIMIT, WEBHOOK_DELIVERIES } from '../../src/webhooks/outbox.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { subscribe } from './helpers.ts';

/** A loopback port nothing listens on: every connect is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Node keeps the signals made by AbortSignal.any(...) in a set on each source
 * signal (an internal symbol); undefined where this Node has no such set.
 */
function dependantsOf(signal: AbortSignal): number | undefined {
  const symbol = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  const set = symbol ? (signal as unknown as Record<symbol, Set<unknown> | undefined>)[symbol] : undefined;
  return set?.size ?? (symbol ? 0 : undefined);
}

/**
 * Failed deliveries must not make the process grow (docs/benchmarks.md,
 * "Memory"): an attempt gives back what it took, and the delivery log keeps its bound
 * after a burst as well as in a steady trickle.
 */
describe('webhook attempts give back what they hold', () => {
  it('a refused attempt leaves nothing registered on the long-lived stop signal', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/hook`;
    const stopping = new AbortController();
    for (let i = 0; i < 20; i++) {
      const result = await send({ url, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 10_000, signal: stopping.signal });
      expect(result.error).toBe(ATTEMPT_ERRORS.refused);
    }
    expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
    expect(dependantsOf(stopping.signal) ?? 0).toBe(0);
  });

  it('an attempt still ends at its deadline, and says so', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer((socket) => void sockets.add(socket)); // accepts and never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const result = await send({ url: `http://127.0.0.1:${port}/hook`, headers: {}, body: '{}', timeoutMs: 50, signal: new AbortController().signal });
      expect(result).toMatchObject({ response: null, error: ATTEMPT_ERRORS.timeout });
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('the delivery log after a burst', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await testSandbox({ enforceRateLimits: false });
  });
  afterAll(() => t.sandbox.stop());

  it('keeps its bound once a burst larger than the bound has finished', async () => {
    await subscribe(t, { url: `http://127.0.0.1:${await closedPort()}/hook`, events: ['booking.created'], maxRetries: 0 });
    // all enqueued before the first attempt ends: trimming only as deliveries arrive finds them pending
    const burst = DELIVERY_LOG_LIMIT + 300;
    for (let i = 0; i < burst; i++) emitDomainEvent(t.sandbox.events, t.sandbox.clock, t.liveWorkspaceId, 'booking.created', { id: `book_${i}` });
    await t.sandbox.context.webhooks.idle();
    const rows = WEBHOOK_DELIVERIES.in(t.sandbox.store).list(t.liveWorkspaceId);
    expect(rows.filter((d) => d.status === 'pending')).toHaveLength(0);
    expect(rows.length).toBeLessThanOrEqual(DELIVERY_LOG_LIMIT + 100);
    // the newest survive
    expect(rows.some((d) => JSON.parse(d.body).data.id === `book_${burst - 1}`)).toBe(true);
  }, 60_000);
});
