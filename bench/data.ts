import { request } from 'undici';
import { stopChild } from './lib/children.ts';
import { startSandbox } from './lib/sandbox-child.ts';
import { median, round } from './lib/stats.ts';

/**
 * Section "data" (the data inspector; docs/control-plane.md "Data
 * inspector"): what the inspector's routes cost on a collection of 100k
 * bookings, seeded into a fresh `sandbox start --in-memory`. Control-plane
 * requests are not in the request log, so each figure is the client's wall
 * time on loopback (request sent to body read): the server's time plus
 * ~1 ms, given beside GET /__sandbox/health as the floor. "first" is the
 * first request of its kind after the seed; medians are over spread offsets.
 * Target: the first page, and a page at any offset, well under 100 ms.
 */
export interface DataBenchResult {
  bookings: number;
  seedSeconds: number;
  healthMs: number;
  collectionsMs: number;
  firstPageMs: number;
  pageMedianMs: number;
  deepFirstMs: number;
  deepMedianMs: number;
  idMs: number;
  /** q that fills its page early (every booking id starts book_): stops counting, totalIsExact false */
  qEarlyMs: number;
  /** q of one booking's code: matches one row, so reads the whole collection */
  qRareMs: number;
  recordMs: number;
  /** a product's record: its related bookings counted by an index built by one scan on first use */
  productRecordFirstMs: number;
  productRecordMs: number;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Json; ms: number }> {
  const started = performance.now();
  const res = await request(`${origin}${path}`, {
    method: method as 'GET',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const text = await res.body.text();
  const ms = round(performance.now() - started, 1);
  if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return { status: res.statusCode, json: JSON.parse(text), ms };
}

export async function runDataBench(target: number, log: (line: string) => void): Promise<DataBenchResult> {
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  try {
    const { origin } = sandbox;
    const ws: string = (await call(origin, 'GET', '/__sandbox/workspaces')).json.data.find((w: { mode: string }) => w.mode === 'live').id;
    const base = `/__sandbox/workspaces/${ws}/collections`;
    log(`data: seeding ${target.toLocaleString('en-US')} bookings ...`);
    const seedStart = performance.now();
    let bookings = (await call(origin, 'GET', `${base}/bookings?limit=1`)).json.data.total as number;
    for (let i = 0; bookings < target && i < 30; i++) {
      const want = Math.min(target - bookings, 50_000);
      bookings += (await call(origin, 'POST', '/__sandbox/seed', { workspaceId: ws, bookings: want, products: Math.ceil(want / 200) })).json.data.created
        .bookings as number;
    }
    const seedSeconds = round((performance.now() - seedStart) / 1000, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    log('data: pages, ids, searches, records ...');
    const healthMs = median(await times(10, () => call(origin, 'GET', '/__sandbox/health')));
    const first = await call(origin, 'GET', `${base}/bookings?limit=100`);
    const total = first.json.data.total as number;
    const deepFirst = await call(origin, 'GET', `${base}/bookings?limit=100&offset=${total - 100}`);
    const collectionsMs = median(await times(5, () => call(origin, 'GET', base)));
    const pageMedianMs = median(await times(10, () => call(origin, 'GET', `${base}/bookings?limit=100`)));
    const offsets = Array.from({ length: 20 }, (_, i) => Math.floor(((i + 0.5) / 20) * (total - 100)));
    const deepMedianMs = median(await seq(offsets, (o) => call(origin, 'GET', `${base}/bookings?limit=100&offset=${o}`)));
    const some = deepFirst.json.data.rows as { id: string; code: string; productId: string }[];
    const idMs = median(await seq(some.slice(0, 10), (b) => call(origin, 'GET', `${base}/bookings?id=${b.id}`)));
    const qEarlyMs = median(await times(3, () => call(origin, 'GET', `${base}/bookings?q=book_&limit=100`)));
    const qRareMs = median(await seq(some.slice(0, 3), (b) => call(origin, 'GET', `${base}/bookings?q=${encodeURIComponent(b.code)}`)));
    const recordMs = median(await seq(some.slice(0, 10), (b) => call(origin, 'GET', `${base}/bookings/${b.id}`)));
    const product = some.find((b) => b.productId)!.productId;
    const productRecordFirstMs = (await call(origin, 'GET', `${base}/products/${product}`)).ms;
    const productRecordMs = median(await times(5, () => call(origin, 'GET', `${base}/products/${product}`)));
    return {
      bookings: total,
      seedSeconds,
      healthMs,
      collectionsMs,
      firstPageMs: first.ms,
      pageMedianMs,
      deepFirstMs: deepFirst.ms,
      deepMedianMs,
      idMs,
      qEarlyMs,
      qRareMs,
      recordMs,
      productRecordFirstMs,
      productRecordMs,
    };
  } finally {
    await stopChild(sandbox.child);
  }
}

async function times(n: number, run: () => Promise<{ ms: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await run()).ms);
  return out;
}

async function seq<T>(items: readonly T[], run: (item: T) => Promise<{ ms: number }>): Promise<number[]> {
  const out: number[] = [];
  for (const item of items) out.push((await run(item)).ms);
  return out;
}

export function dataBlock(r: DataBenchResult): string {
  const row = (name: string, ms: number) => `  ${name.padEnd(62)} ${String(ms).padStart(8)} ms`;
  const met = r.firstPageMs < 100 && r.deepFirstMs < 100 && r.pageMedianMs < 100 && r.deepMedianMs < 100;
  return [
    `13. inspector data: first page of a ${r.bookings.toLocaleString('en-US')}-row collection (wall time on loopback; seeded in ${r.seedSeconds} s)`,
    row('GET /__sandbox/health (the floor)', r.healthMs),
    row('GET .../collections (every collection with its count)', r.collectionsMs),
    row('GET .../collections/bookings?limit=100, first after the seed', r.firstPageMs),
    row('  the same, median', r.pageMedianMs),
    row('GET .../bookings?limit=100&offset=<last page>, first', r.deepFirstMs),
    row('  median over 20 spread offsets', r.deepMedianMs),
    row('GET .../bookings?id=<id>, median', r.idMs),
    row('GET .../bookings?q=book_ (page full early, total inexact)', r.qEarlyMs),
    row('GET .../bookings?q=<a code> (one match: reads every row)', r.qRareMs),
    row('GET .../bookings/<id> (links, passengers and items), median', r.recordMs),
    row('GET .../products/<id>, first (indexes bookings by productId)', r.productRecordFirstMs),
    row('  the same, median', r.productRecordMs),
    `  target: first page and any page < 100 ms: ${met ? 'met' : 'NOT met'}`,
  ].join('\n');
}
