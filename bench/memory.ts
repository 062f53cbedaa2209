import { readFileSync } from 'node:fs';
import { Pool, request } from 'undici';
import { stopChild, type Child } from './lib/children.ts';
import { freePort } from './lib/ports.ts';
import { AUTH_HEADERS, startBareServer, startSandbox } from './lib/sandbox-child.ts';
import { round, sleep } from './lib/stats.ts';
import { PRODUCTS_PATH } from './throughput.ts';

/**
 * Section 7, memory: RSS of `sandbox start --in-memory` and of the bare
 * Fastify server, 1 s after their first answer (idle), then the sandbox's
 * RSS as load accumulates: after 10k and 100k requests (flat = the request
 * log and the other histories are bounded), after 1k, 5k and 10k webhook
 * deliveries that fail (receiver port closed, no retries; measured once none
 * is pending, so the figure is the process and not the queue), and with bookings
 * seeded through the control plane (20k by default, each with its people,
 * passengers and items: about six rows; counted as created, since the seeder
 * skips bookings it cannot place; 100k is estimated on a straight line
 * unless --memory-bookings 100000 is passed).
 */
export interface MemoryResult {
  idleMiB: number;
  bareIdleMiB: number;
  /** idle sandbox / idle bare */
  idleRatio: number;
  afterRequests: { requests: number; mib: number }[];
  afterFailedDeliveries: { deliveries: number; mib: number }[];
  bookings: number;
  /** RSS just before seeding the bookings */
  beforeBookingsMiB: number;
  withBookingsMiB: number;
  /** then after reading one seeded booking (its passenger and item indexes are built on that first read) */
  afterReadingMiB: number;
  /** (with - before) / bookings * 100k + idle: a straight-line estimate, labelled as such */
  estimatedAt100kMiB: number;
}

const SETTLE_MS = 1000;

/** Resident set size of a child, from /proc (Linux). */
export function rssMiB(child: Child): number {
  const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
  return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024, 1);
}

async function json(origin: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await request(`${origin}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** Waits (60 s at most) until the workspace has no pending webhook delivery left. */
async function untilNoPending(origin: string, workspaceId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { data } = await json(origin, 'GET', `/__sandbox/deliveries?workspaceId=${workspaceId}&status=pending&limit=1`);
    if (data.length === 0) return;
    await sleep(200);
  }
}

/** `total` requests from `concurrency` workers, each with one in flight. */
async function hammer(origin: string, total: number, concurrency: number, send: (pool: Pool, i: number) => Promise<void>): Promise<void> {
  const pool = new Pool(origin, { connections: concurrency });
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await send(pool, next++);
      }),
    );
  } finally {
    await pool.close();
  }
}

export async function runMemory(options: {
  requests: number;
  deliveries: number;
  bookings: number;
  bodyFile: string;
  log: (line: string) => void;
}): Promise<MemoryResult> {
  const { log } = options;
  log('memory: idle RSS of the bare server and the sandbox ...');
  const bare = await startBareServer(options.bodyFile);
  let bareIdleMiB: number;
  try {
    await (await request(`${bare.origin}/parsed`)).body.dump();
    await sleep(SETTLE_MS);
    bareIdleMiB = rssMiB(bare.child);
  } finally {
    await stopChild(bare.child);
  }

  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  try {
    const { origin, child } = sandbox;
    await (await request(`${origin}${PRODUCTS_PATH}?limit=1`, { headers: AUTH_HEADERS })).body.dump();
    await sleep(SETTLE_MS);
    const idleMiB = rssMiB(child);

    const afterRequests: MemoryResult['afterRequests'] = [];
    let done = 0;
    for (const target of [options.requests / 10, options.requests]) {
      log(`memory: ${target.toLocaleString('en-US')} requests ...`);
      await hammer(origin, target - done, 16, async (pool) => {
        const res = await pool.request({ method: 'GET', path: `${PRODUCTS_PATH}?limit=1`, headers: AUTH_HEADERS });
        await res.body.dump();
      });
      done = target;
      await sleep(SETTLE_MS);
      afterRequests.push({ requests: target, mib: rssMiB(child) });
    }

    const { data: workspaces } = await json(origin, 'GET', '/__sandbox/workspaces');
    const workspaceId: string = workspaces.find((w: { mode: string }) => w.mode === 'live').id;
    const closedPort = await freePort(); // nothing listens there: every attempt is refused
    await json(
      origin,
      'POST',
      '/v1/webhooks/subscriptions',
      { url: `http://127.0.0.1:${closedPort}/hook`, events: ['booking.created'], maxRetries: 0 },
      AUTH_HEADERS,
    );
    const afterFailedDeliveries: MemoryResult['afterFailedDeliveries'] = [];
    let sent = 0;
    for (const target of [options.deliveries / 10, options.deliveries / 2, options.deliveries]) {
      log(`memory: ${target.toLocaleString('en-US')} failed webhook deliveries ...`);
      await hammer(origin, target - sent, 8, async (pool) => {
        const res = await pool.request({
          method: 'POST',
          path: '/__sandbox/events',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ workspaceId, type: 'booking.created' }),
        });
        await res.body.dump();
      });
      sent = target;
      // measure the process, not the queue: attempts lag behind a burst of events
      await untilNoPending(origin, workspaceId);
      await sleep(SETTLE_MS);
      afterFailedDeliveries.push({ deliveries: target, mib: rssMiB(child) });
    }

    const beforeBookingsMiB = rssMiB(child);
    log(`memory: seeding ${options.bookings.toLocaleString('en-US')} bookings ...`);
    // The seeder skips bookings it cannot place (a full departure, no child price), so
    // the bench counts what was created, and adds a product per 200 bookings for seats.
    let bookings = 0;
    for (let round = 0; bookings < options.bookings && round < 20; round++) {
      const want = Math.min(options.bookings - bookings, 50_000);
      const { data } = await json(origin, 'POST', '/__sandbox/seed', { workspaceId, bookings: want, products: Math.ceil(want / 200) });
      bookings += data.created.bookings;
    }
    await sleep(SETTLE_MS);
    const withBookingsMiB = rssMiB(child);
    // What the API adds on its first read of a booking: the passengers and items
    // by booking id (src/storage/field-index.ts), over every seeded row.
    const {
      data: [newest],
    } = await json(origin, 'GET', '/v1/bookings?limit=1', undefined, AUTH_HEADERS);
    await json(origin, 'GET', `/v1/bookings/${newest.id}`, undefined, AUTH_HEADERS);
    await sleep(SETTLE_MS);
    const afterReadingMiB = rssMiB(child);
    return {
      idleMiB,
      bareIdleMiB,
      idleRatio: round(idleMiB / bareIdleMiB, 2),
      afterRequests,
      afterFailedDeliveries,
      bookings,
      beforeBookingsMiB,
      withBookingsMiB,
      afterReadingMiB,
      estimatedAt100kMiB: round(idleMiB + ((withBookingsMiB - beforeBookingsMiB) / Math.max(bookings, 1)) * 100_000, 0),
    };
  } finally {
    await stopChild(sandbox.child);
  }
}
