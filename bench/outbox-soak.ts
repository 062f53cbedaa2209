import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { stopChild } from './lib/children.ts';
import { AUTH_HEADERS, startSandbox } from './lib/sandbox-child.ts';
import { round, sleep } from './lib/stats.ts';
import { rssMiB } from './memory.ts';
import { PRODUCTS_PATH } from './throughput.ts';

/**
 * Section 10, the outbox soak (docs/webhooks.md, "Pending deliveries are bounded"): a file-backed sandbox with a
 * compressed retry schedule (`--webhook-retry-scale 0.001`: the ten retries in
 * about 6 minutes) sends `booking.created` to a receiver that always answers
 * 500, 37 events a second, beside 37 `GET /v1/products` a second. An outbox that
 * kept every event and every attempt's request took RSS in 10 minutes
 * from 128 to 770 MiB and db.json to 270 MB. Here a delivery keeps its body
 * once, attempts keep what changed, and at most webhookMaxPending (1,000)
 * deliveries per subscription are pending, so the curve levels off once the
 * bound is reached (about 30 s at 37 a second). Samples every `sampleSeconds`:
 * RSS, db.json and its journal.
 */
export interface SoakSample {
  seconds: number;
  rssMiB: number;
  dbMB: number;
  journalMB: number;
  /** events accepted so far */
  emitted: number;
}

export interface SoakResult {
  seconds: number;
  eventsPerSecond: number;
  samples: SoakSample[];
  maxRssMiB: number;
  maxDiskMB: number;
  /** RSS of the last sample over the sample at a third of the run: ~1 when level */
  lateGrowth: number;
}

const EVENTS_PER_SECOND = 37;
const MAX_IN_FLIGHT = 64;

function failingReceiver(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('receiver is down');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const mb = (path: string) => {
  try {
    return round(statSync(path).size / 1e6, 1);
  } catch {
    return 0;
  }
};

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

export async function runOutboxSoak(options: { seconds: number; sampleSeconds: number; tmpDir: string; log: (line: string) => void }): Promise<SoakResult> {
  const { log } = options;
  const dbPath = join(options.tmpDir, 'soak-db.json');
  const receiver = await failingReceiver();
  const sandbox = await startSandbox(['--data', dbPath, '--no-rate-limits', '--port', '0', '--webhook-retry-scale', '0.001']);
  const pool = new Pool(sandbox.origin, { connections: 16 });
  try {
    const { origin, child } = sandbox;
    const { data: workspaces } = await json(origin, 'GET', '/__sandbox/workspaces');
    const workspaceId: string = workspaces.find((w: { mode: string }) => w.mode === 'live').id;
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await json(origin, 'POST', '/v1/webhooks/subscriptions', { url, events: ['booking.created'], maxRetries: 10 }, AUTH_HEADERS);

    let emitted = 0;
    let inFlight = 0;
    const fire = (send: () => Promise<unknown>) => {
      if (inFlight >= MAX_IN_FLIGHT) return; // the sandbox is behind: skip rather than queue without end
      inFlight++;
      void send()
        .catch(() => undefined)
        .finally(() => inFlight--);
    };
    const event = JSON.stringify({ workspaceId, type: 'booking.created' });
    const ticker = setInterval(() => {
      fire(async () => {
        const res = await pool.request({ method: 'POST', path: '/__sandbox/events', headers: { 'content-type': 'application/json' }, body: event });
        await res.body.dump();
        if (res.statusCode === 201) emitted++;
      });
      fire(async () => (await pool.request({ method: 'GET', path: `${PRODUCTS_PATH}?limit=10`, headers: AUTH_HEADERS })).body.dump());
    }, 1000 / EVENTS_PER_SECOND);

    const samples: SoakSample[] = [];
    const started = performance.now();
    log(`outbox soak: ${options.seconds} s of ${EVENTS_PER_SECOND} failing booking.created a second (retry scale 0.001) ...`);
    try {
      for (let next = 0; next <= options.seconds; next += options.sampleSeconds) {
        await sleep(Math.max(0, started + next * 1000 - performance.now()));
        const sample = { seconds: next, rssMiB: rssMiB(child), dbMB: mb(dbPath), journalMB: mb(`${dbPath}.journal`), emitted };
        samples.push(sample);
        log(`  ${next} s: RSS ${sample.rssMiB} MiB, db.json ${sample.dbMB} MB, journal ${sample.journalMB} MB, ${emitted} events`);
      }
    } finally {
      clearInterval(ticker);
    }
    const third = samples[Math.floor(samples.length / 3)]!;
    return {
      seconds: options.seconds,
      eventsPerSecond: round(emitted / options.seconds, 1),
      samples,
      maxRssMiB: Math.max(...samples.map((s) => s.rssMiB)),
      maxDiskMB: round(Math.max(...samples.map((s) => s.dbMB + s.journalMB)), 1),
      lateGrowth: round(samples.at(-1)!.rssMiB / third.rssMiB, 2),
    };
  } finally {
    await pool.close();
    await stopChild(sandbox.child);
    await new Promise((resolve) => receiver.close(resolve));
  }
}
