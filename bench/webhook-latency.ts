import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { emitDomainEvent } from '../src/core/events.ts';
import { createSandbox } from '../src/sandbox.ts';
import { newWebhookSecret } from '../src/webhooks/signing.ts';
import { WEBHOOK_SUBSCRIPTIONS } from '../src/resources/webhooks/collections.ts';

export interface WebhookLatency {
  count: number;
  medianMs: number;
  p99Ms: number;
}

/**
 * For the benchmark: emits `count` events, one after another, to a local
 * receiver (node:http on 127.0.0.1) through a real in-memory sandbox, and
 * returns the median and p99 of emit-to-receipt latency in ms. This measures
 * wall time on purpose; it is the one thing here that must.
 */
export async function measureWebhookLatency(count: number): Promise<WebhookLatency> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  let arrived: (() => void) | null = null;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived?.();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', fsync: false });
  try {
    const workspaceId = sandbox.workspaces[0]!.id;
    const now = sandbox.clock.iso();
    const subscription = {
      id: 'whsub_00000000-0000-4000-8000-00000000be7c',
      workspace_id: workspaceId,
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bench`,
      events: ['booking.*'],
      active: true,
      max_retries: 0,
      headers: null,
      description: 'benchmark',
      created_at: now,
      updated_at: now,
      last_delivery_at: null,
      failure_count: 0,
      secret: newWebhookSecret(),
    };
    await WEBHOOK_SUBSCRIPTIONS.in(sandbox.store).put(workspaceId, subscription);
    const samples: number[] = [];
    for (let i = 0; i < count; i++) {
      const received = new Promise<void>((resolve) => (arrived = resolve));
      const started = performance.now();
      emitDomainEvent(sandbox.events, sandbox.clock, workspaceId, 'booking.created', { id: `book_bench_${i}`, status: 'pending' });
      await received;
      samples.push(performance.now() - started);
    }
    await sandbox.context.webhooks.idle();
    samples.sort((a, b) => a - b);
    const at = (q: number) => Math.round(samples[Math.min(samples.length - 1, Math.ceil(q * samples.length) - 1)]! * 1000) / 1000;
    return { count, medianMs: at(0.5), p99Ms: at(0.99) };
  } finally {
    await sandbox.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
