import { request } from 'undici';
import { stopChild } from './lib/children.ts';
import { AUTH_HEADERS, startSandbox } from './lib/sandbox-child.ts';
import { median, percentile, round, sleep } from './lib/stats.ts';
import { rssMiB } from './memory.ts';

/**
 * Section 10, scale (docs/storage.md, "Ordered indexes"): what a request costs at 10k and
 * at 100k seeded bookings, in a fresh `sandbox start --in-memory` each.
 * Per-request costs are the sandbox's own time (latencyMs of its request log,
 * from the first hook to the response sent), medians over spread offsets and
 * random ids; "all pages" is the client's wall time to read every page of 100
 * one after another. Memory is RSS 1 s after the seed and after reading every
 * page. The growth table gives each figure at both sizes and their ratio:
 * per-request costs should stay flat (ratio <= 1.5).
 */
export interface ScaleRun {
  bookings: number;
  seedSeconds: number;
  firstListMs: number;
  firstReadMs: number;
  page: Series;
  /** status=confirmed, in the default order (newest first) */
  statusPage: Series;
  /** status=confirmed, sort=updatedAt */
  filteredPage: Series;
  searchPage: Series;
  /** q = a booking's code: one match, read and sent */
  codeSearchPage: Series;
  read: Series;
  create: Series;
  patch: Series;
  allPagesSeconds: number;
  pages: number;
  rssAfterSeedMiB: number;
  rssAfterPagesMiB: number;
}

export interface Series {
  medianMs: number;
  p95Ms: number;
  maxMs: number;
  count: number;
}

export interface ScaleResult {
  runs: ScaleRun[];
  loadAverage: number[];
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = AUTH_HEADERS,
): Promise<{ status: number; json: Json; ms: number }> {
  const started = performance.now();
  const res = await request(`${origin}${path}`, {
    method: method as 'GET',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : null, ms: round(performance.now() - started, 1) };
}

/** Server time of the /v1 requests made since the log was cleared (it keeps 1,000), matching `path`. */
async function serverTimes(origin: string, method: string, match: (path: string) => boolean, status = 200): Promise<number[]> {
  const { json } = await call(origin, 'GET', '/__sandbox/requests?limit=1000', undefined, {});
  await call(origin, 'DELETE', '/__sandbox/requests', undefined, {});
  return (json.data as { method: string; path: string; status: number; latencyMs: number }[])
    .filter((e) => e.method === method && e.status === status && match(e.path))
    .map((e) => e.latencyMs);
}

const series = (values: number[]): Series => {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianMs: round(median(sorted), 2), p95Ms: round(percentile(sorted, 95), 2), maxMs: round(sorted.at(-1) ?? NaN, 2), count: values.length };
};

/** A fixed sequence of pseudo-random numbers (the figures of one run compare with the next). */
function* spread(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    yield x / 2147483648;
  }
}

async function runAt(target: number, log: (line: string) => void): Promise<ScaleRun> {
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  try {
    const { origin, child } = sandbox;
    const { json: ws } = await call(origin, 'GET', '/__sandbox/workspaces', undefined, {});
    const workspaceId: string = ws.data.find((w: { mode: string }) => w.mode === 'live').id;
    log(`scale: seeding ${target.toLocaleString('en-US')} bookings ...`);
    const seedStart = performance.now();
    let bookings = (await call(origin, 'GET', '/v1/bookings?limit=1')).json.meta.total as number;
    for (let round = 0; bookings < target && round < 30; round++) {
      const want = Math.min(target - bookings, 50_000);
      const { status, json } = await call(origin, 'POST', '/__sandbox/seed', { workspaceId, bookings: want, products: Math.ceil(want / 200) }, {});
      if (status !== 200) throw new Error(`seed: ${status} ${JSON.stringify(json).slice(0, 200)}`);
      bookings += json.data.created.bookings;
    }
    const seedSeconds = round((performance.now() - seedStart) / 1000, 1);
    await sleep(1000);
    const rssAfterSeedMiB = rssMiB(child);
    await call(origin, 'DELETE', '/__sandbox/requests', undefined, {});

    // first list and first read after the seed: the oldest booking, in a packed page
    const firstList = await call(origin, 'GET', '/v1/bookings?limit=1');
    const total = firstList.json.meta.total as number;
    const oldest = await call(origin, 'GET', `/v1/bookings?limit=1&offset=${total - 1}`);
    const firstRead = await call(origin, 'GET', `/v1/bookings/${oldest.json.data[0].id}`);
    const [firstListMs] = await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?limit=1') && !p.includes('offset'));

    log('scale: every page, one after another ...');
    const pagesStart = performance.now();
    let pages = 0;
    for (let offset = 0; offset < total; offset += 100, pages++) {
      const { status } = await call(origin, 'GET', `/v1/bookings?limit=100&offset=${offset}`);
      if (status !== 200) throw new Error(`page at ${offset}: ${status}`);
      if (pages % 900 === 899) await call(origin, 'DELETE', '/__sandbox/requests', undefined, {});
    }
    const allPagesSeconds = round((performance.now() - pagesStart) / 1000, 2);
    await sleep(1000);
    const rssAfterPagesMiB = rssMiB(child);
    await call(origin, 'DELETE', '/__sandbox/requests', undefined, {});

    log('scale: pages at spread offsets, with and without a filter ...');
    const random = spread(27);
    const offsets = Array.from({ length: 150 }, () => Math.floor(random.next().value * Math.max(total - 100, 1)));
    const ids: string[] = [];
    const codes: string[] = [];
    for (const offset of offsets) {
      const listed = (await call(origin, 'GET', `/v1/bookings?limit=100&offset=${offset}`)).json.data as { id: string; code: string }[];
      ids.push(...listed.map((b) => b.id));
      codes.push(listed[0]!.code);
    }
    const page = series(await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?')));
    const confirmed = (await call(origin, 'GET', '/v1/bookings?status=confirmed&limit=1')).json.meta.total as number;
    for (const offset of offsets)
      await call(origin, 'GET', `/v1/bookings?status=confirmed&limit=100&offset=${Math.floor((offset / total) * Math.max(confirmed - 100, 1))}`);
    const statusPage = series(await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?status=confirmed&limit=100')));
    for (const offset of offsets)
      await call(origin, 'GET', `/v1/bookings?status=confirmed&sort=updatedAt&limit=100&offset=${Math.floor((offset / total) * Math.max(confirmed - 100, 1))}`);
    const filteredPage = series(await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?status=confirmed&sort')));
    for (let i = 0; i < 30; i++) await call(origin, 'GET', `/v1/bookings?q=${ids[i * 7]!.slice(-4)}&limit=20`);
    const searchPage = series(await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?q=')));
    for (let i = 0; i < 30; i++) await call(origin, 'GET', `/v1/bookings?q=${encodeURIComponent(codes[i * 3]!.toLowerCase())}&limit=20`);
    const codeSearchPage = series(await serverTimes(origin, 'GET', (p) => p.startsWith('/v1/bookings?q=')));

    log('scale: reads, creates and patches ...');
    for (let i = 0; i < 300; i++) await call(origin, 'GET', `/v1/bookings/${ids[Math.floor(random.next().value * ids.length)]}`);
    const read = series(await serverTimes(origin, 'GET', (p) => /^\/v1\/bookings\/[^/?]+$/.test(p)));
    // the seeder fills departures: where one has no seat left, a booking created cancelled holds none
    // (the same create path: pricing, code, items, commit; only the seat check and the departure write are skipped)
    let made = 0;
    let lastRefusal = '';
    for (let i = 0; made < 100 && i < ids.length; i++) {
      const booking = (await call(origin, 'GET', `/v1/bookings/${ids[i]}`)).json.data;
      if (!booking.departureId) continue;
      let created = await call(origin, 'POST', '/v1/bookings', { departureId: booking.departureId, adults: 1 });
      if (created.status !== 201) created = await call(origin, 'POST', '/v1/bookings', { departureId: booking.departureId, adults: 1, status: 'cancelled' });
      if (created.status === 201) made++;
      else lastRefusal = `${created.status} ${JSON.stringify(created.json).slice(0, 160)}`;
    }
    if (made === 0) log(`scale: no booking could be created (${lastRefusal})`);
    const create = series(await serverTimes(origin, 'POST', (p) => p === '/v1/bookings', 201));
    for (let i = 0; i < 100; i++) await call(origin, 'PATCH', `/v1/bookings/${ids[i * 3]}`, { notes: `scale ${i}` });
    const patch = series(await serverTimes(origin, 'PATCH', (p) => /^\/v1\/bookings\/[^/?]+$/.test(p)));

    return {
      bookings: total,
      seedSeconds,
      firstListMs: firstListMs ?? firstList.ms,
      firstReadMs: firstRead.ms,
      page,
      statusPage,
      filteredPage,
      searchPage,
      codeSearchPage,
      read,
      create,
      patch,
      allPagesSeconds,
      pages,
      rssAfterSeedMiB,
      rssAfterPagesMiB,
    };
  } finally {
    await stopChild(sandbox.child);
  }
}

export async function runScale(sizes: readonly number[], log: (line: string) => void): Promise<ScaleResult> {
  const runs: ScaleRun[] = [];
  for (const size of sizes) runs.push(await runAt(size, log));
  const { loadavg } = await import('node:os');
  return { runs, loadAverage: loadavg().map((x) => round(x, 2)) };
}

/** The scale block: each size's figures, then the growth table. */
export function scaleBlock(s: ScaleResult, table: (head: string[], rows: (string | number)[][]) => string): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const lines = [
    `12. scale: bookings at ${s.runs.map((r) => fmt(r.bookings)).join(' and ')} (sandbox --in-memory; server time from its request log; load average ${s.loadAverage.join(', ')})`,
  ];
  for (const r of s.runs) {
    // the target: a page with and without a filter under 10 ms; sorting by updatedAt is reported beside it
    const worst = Math.max(r.page.p95Ms, r.statusPage.p95Ms);
    const pageVerdict =
      `pages with and without the filter: p95 ${worst < 10 ? 'under' : 'AT OR OVER'} 10 ms, ` +
      `${Math.max(r.page.maxMs, r.statusPage.maxMs) < 10 ? 'every sampled one under 10 ms' : 'some sampled page at 10 ms or more'}`;
    lines.push(
      `  ${fmt(r.bookings)}: seeded in ${r.seedSeconds} s; first list ${r.firstListMs} ms, first read ${r.firstReadMs} ms (client; target < 100); ` +
        `all ${fmt(r.pages)} pages in ${r.allPagesSeconds} s (target < 10 s)`,
      `    page of 100 at ${r.page.count} offsets: median ${r.page.medianMs} ms, p95 ${r.page.p95Ms}, max ${r.page.maxMs}; ` +
        `status=confirmed: median ${r.statusPage.medianMs}, p95 ${r.statusPage.p95Ms}, max ${r.statusPage.maxMs} (${pageVerdict}); ` +
        `status=confirmed by updatedAt: median ${r.filteredPage.medianMs}, p95 ${r.filteredPage.p95Ms}, max ${r.filteredPage.maxMs}; ` +
        `q search (trigram index): median ${r.searchPage.medianMs}, p95 ${r.searchPage.p95Ms}, max ${r.searchPage.maxMs}; ` +
        `q = a code: median ${r.codeSearchPage.medianMs}, p95 ${r.codeSearchPage.p95Ms}, max ${r.codeSearchPage.maxMs}`,
      `    RSS ${r.rssAfterSeedMiB} MiB after the seed, ${r.rssAfterPagesMiB} MiB after every page ` +
        `(${round((r.rssAfterPagesMiB / r.rssAfterSeedMiB - 1) * 100, 1)}%; target within 15%)`,
    );
  }
  const [small, large] = s.runs;
  if (small && large) {
    const ratio = (a: number, b: number) => round(b / a, 2);
    const row = (label: string, a: number, b: number, flat: boolean) => {
      const r = ratio(a, b);
      return [label, a, b, r, flat ? (r <= 1.5 ? 'flat (<= 1.5)' : 'GROWS (> 1.5)') : ''];
    };
    lines.push(
      table(
        ['median (server ms) / memory (MiB)', fmt(small.bookings), fmt(large.bookings), 'ratio', ''],
        [
          row('list page (limit 100)', small.page.medianMs, large.page.medianMs, true),
          row('list page, status=confirmed', small.statusPage.medianMs, large.statusPage.medianMs, true),
          row('list page, the same by updatedAt', small.filteredPage.medianMs, large.filteredPage.medianMs, true),
          row('read one booking', small.read.medianMs, large.read.medianMs, true),
          row('create a booking', small.create.medianMs, large.create.medianMs, true),
          row('patch a booking', small.patch.medianMs, large.patch.medianMs, true),
          row('q search page (4 characters of an id)', small.searchPage.medianMs, large.searchPage.medianMs, true),
          row('q search page (a booking code)', small.codeSearchPage.medianMs, large.codeSearchPage.medianMs, true),
          row('RSS after the seed', small.rssAfterSeedMiB, large.rssAfterSeedMiB, false),
          row('RSS after every page', small.rssAfterPagesMiB, large.rssAfterPagesMiB, false),
        ],
      ),
    );
  }
  return lines.join('\n');
}
