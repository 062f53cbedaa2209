import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { request } from 'undici';
import { processCpuMs } from './lib/cpu.ts';
import { Loader, summarize, type LoadResult, type LoadSample } from './lib/load.ts';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium.ts';
import { AUTH_HEADERS, ROOT, startSandbox } from './lib/sandbox-child.ts';

export { CHROMIUM };
import { median, round } from './lib/stats.ts';

/**
 * Section 14, the browser inspector (docs/inspector.md, "Figures"):
 * (a) the bundle's size gzipped (≤ 250 KB), (b) first load to a usable Requests view in
 * headless Chromium (< 1 s), (c) /v1 throughput with an inspector page open and streaming
 * against none open, same run, interleaved rounds (≥ 0.9), (d) the first page of a
 * 100k-row collection in the Data view (< 1 s). With the load average, start and end.
 */

export interface InspectorBenchResult {
  loadAvgStart: string;
  loadAvgEnd: string;
  bundle: { jsGzipBytes: number; cssGzipBytes: number; totalGzipBytes: number; jsRawBytes: number; cssRawBytes: number };
  /** navigation start → the requests table in the DOM, and → the stream live; per run, fresh browser context */
  firstLoad: { runs: number; tableMs: number[]; liveMs: number[]; medianTableMs: number; medianLiveMs: number };
  /** none open; a bare SSE client reading the stream (the server's side of the cost alone); an inspector page streaming */
  throughput: {
    connections: number;
    rounds: number;
    none: LoadResult;
    sseClient: LoadResult;
    streaming: LoadResult;
    ratio: number;
    sseClientRatio: number;
    /** CPU of every Chromium process while the page streamed, in cores (0.1 = a tenth of one core) */
    chromiumCoreShare: number;
  };
  bigCollection: { bookings: number; runs: number; rowsMs: number[]; medianRowsMs: number; apiFirstPageMs: number };
}

/** what the inspector's Requests view asks of the stream (src/inspector/stream.ts) */
const PAGE_STREAM_QUERY = 'events=request,reset&detail=none&requests=batched';

/** user + system CPU of every Chromium process, in ms (/proc; 0 where there is none) */
function chromiumCpuMs(): number {
  if (!existsSync('/proc')) return 0;
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let name = '';
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue; // the process ended meanwhile
    }
    if (name !== 'chromium') continue;
    const ms = processCpuMs(Number(pid));
    if (!Number.isNaN(ms)) total += ms;
  }
  return total;
}

const loadavg = () => (existsSync('/proc/loadavg') ? readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : 'n/a');

/** ms from navigation start until `selector` is in the DOM, measured by the page itself */
async function timeTo(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  return page.evaluate(
    `new Promise((resolve) => { const look = () => document.querySelector(${JSON.stringify(selector)}) ? resolve(performance.now()) : requestAnimationFrame(look); look(); })`,
  ) as Promise<number>;
}

export async function runInspectorBench(options: {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<InspectorBenchResult> {
  const { log } = options;
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  const loadAvgStart = loadavg();
  log('inspector: building the bundle ...');
  const build = join(ROOT, 'scripts/build-inspector.mjs');
  const { buildInspector } = (await import(build)) as { buildInspector: () => Promise<unknown> };
  await buildInspector();
  const js = readFileSync(join(ROOT, 'dist/inspector/assets/main.js'));
  const css = readFileSync(join(ROOT, 'dist/inspector/assets/main.css'));
  const bundle = {
    jsGzipBytes: gzipSync(js).length,
    cssGzipBytes: gzipSync(css).length,
    totalGzipBytes: gzipSync(js).length + gzipSync(css).length,
    jsRawBytes: js.length,
    cssRawBytes: css.length,
  };

  log('inspector: starting the sandbox (--in-memory --no-rate-limits) and Chromium ...');
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  const viewport = { width: 1280, height: 800 };
  try {
    const ui = `${sandbox.origin}/__sandbox/ui`;
    // (b) first load, a fresh context (no cache) each run
    const tableMs: number[] = [];
    const liveMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      tableMs.push(round(await timeTo(page, `${ui}/requests`, '[role="table"][aria-label="Requests"]'), 1));
      liveMs.push(
        round(
          (await page.evaluate(
            `new Promise((resolve) => { const look = () => document.querySelector('.conn.live') ? resolve(performance.now()) : requestAnimationFrame(look); look(); })`,
          )) as number,
          1,
        ),
      );
      await context.close();
    }
    log(`inspector: first load, table at ${tableMs.join(', ')} ms`);

    // (c) /v1 throughput, none open against a page open and streaming, interleaved rounds
    const first = await request(`${sandbox.origin}/v1/products`, { headers: AUTH_HEADERS });
    const bytes = (await first.body.arrayBuffer()).byteLength;
    const loader = new Loader(
      { name: 'sandbox', origin: sandbox.origin, path: '/v1/products', headers: AUTH_HEADERS, expectBytes: bytes, pid: sandbox.child.process.pid },
      options.connections,
    );
    const none: LoadSample[] = [];
    const sseClient: LoadSample[] = [];
    const streaming: LoadSample[] = [];
    let chromiumMs = 0;
    let chromiumSeconds = 0;
    // a round of at least 2 s: the page's cost is measured in its steady state, not dominated by its start
    const perRound = Math.max(2000, Math.round(options.durationMs / options.rounds));
    try {
      await loader.run(options.warmupMs);
      for (let r = 0; r < options.rounds; r++) {
        log(`inspector: throughput round ${r + 1}/${options.rounds}, ${perRound} ms each ...`);
        const order = r % 2 === 0 ? (['none', 'sse', 'streaming'] as const) : (['streaming', 'sse', 'none'] as const);
        for (const mode of order) {
          if (mode === 'none') {
            none.push(await loader.run(perRound));
            continue;
          }
          if (mode === 'sse') {
            const controller = new AbortController();
            // as the page reads it (detail=none): the sandbox's side of a page's cost, without the browser
            const stream = await request(`${sandbox.origin}/__sandbox/stream?${PAGE_STREAM_QUERY}`, { signal: controller.signal });
            const reading = (async () => {
              for await (const _chunk of stream.body) {
                // read and dropped, as fast as it comes
              }
            })().catch(() => undefined);
            sseClient.push(await loader.run(perRound));
            controller.abort();
            await reading;
            continue;
          }
          const context = await browser.newContext({ viewport });
          const page = await context.newPage();
          await page.goto(`${ui}/requests`);
          await page.locator('.conn.live').waitFor({ timeout: 30_000 });
          // once live, the page reads the sandbox's recent log (1,000 requests) and draws it: the cost of
          // opening it, not of keeping it open, so it is left out of the measured round
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const cpuBefore = chromiumCpuMs();
          const sample = await loader.run(perRound);
          chromiumMs += chromiumCpuMs() - cpuBefore;
          chromiumSeconds += sample.seconds;
          streaming.push(sample);
          await context.close();
        }
      }
    } finally {
      await loader.close();
    }
    const throughput = {
      connections: options.connections,
      rounds: options.rounds,
      none: summarize('none open', none),
      sseClient: summarize('a bare SSE client', sseClient),
      streaming: summarize('a page streaming', streaming),
      ratio: 0,
      sseClientRatio: 0,
      chromiumCoreShare: chromiumSeconds > 0 ? round(chromiumMs / 1000 / chromiumSeconds, 3) : NaN,
    };
    throughput.ratio = round(throughput.streaming.reqPerSec / throughput.none.reqPerSec, 2);
    throughput.sseClientRatio = round(throughput.sseClient.reqPerSec / throughput.none.reqPerSec, 2);

    // (d) a 100k-row collection: its first page in the Data view
    log('inspector: seeding 100,000 bookings ...');
    const workspaces = (await (await request(`${sandbox.origin}/__sandbox/workspaces`)).body.json()) as { data: { id: string; mode: string }[] };
    const ws = workspaces.data.find((w) => w.mode === 'live')!.id;
    for (let seed = 1; ; seed++) {
      const counts = (await (await request(`${sandbox.origin}/__sandbox/workspaces/${ws}/collections`)).body.json()) as {
        data: { name: string; count: number }[];
      };
      const have = counts.data.find((c) => c.name === 'bookings')!.count;
      if (have >= 100_000 || seed > 6) break;
      const res = await request(`${sandbox.origin}/__sandbox/seed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId: ws, seed, products: 200, bookings: Math.min(50_000, 100_000 - have) }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`seed: ${res.statusCode} ${text.slice(0, 200)}`);
    }
    const counts = (await (await request(`${sandbox.origin}/__sandbox/workspaces/${ws}/collections`)).body.json()) as {
      data: { name: string; count: number }[];
    };
    const bookings = counts.data.find((c) => c.name === 'bookings')!.count;
    const started = performance.now();
    await (await request(`${sandbox.origin}/__sandbox/workspaces/${ws}/collections/bookings?limit=100`)).body.dump();
    const apiFirstPageMs = round(performance.now() - started, 1);
    const rowsMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      rowsMs.push(round(await timeTo(page, `${ui}/data/bookings?workspace=${ws}`, 'table[aria-label="bookings records"] tbody tr'), 1));
      await context.close();
    }
    log(`inspector: 100k first page at ${rowsMs.join(', ')} ms`);
    return {
      loadAvgStart,
      loadAvgEnd: loadavg(),
      bundle,
      firstLoad: { runs: tableMs.length, tableMs, liveMs, medianTableMs: median(tableMs), medianLiveMs: median(liveMs) },
      throughput,
      bigCollection: { bookings, runs: rowsMs.length, rowsMs, medianRowsMs: median(rowsMs), apiFirstPageMs },
    };
  } finally {
    await browser.close();
    sandbox.child.process.kill();
  }
}

export function inspectorBlock(r: InspectorBenchResult): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    `14. the browser inspector (load average ${r.loadAvgStart} at the start, ${r.loadAvgEnd} at the end)`,
    `  (a) bundle gzipped: ${kb(r.bundle.totalGzipBytes)} (main.js ${kb(r.bundle.jsGzipBytes)}, main.css ${kb(r.bundle.cssGzipBytes)}; raw ${kb(r.bundle.jsRawBytes + r.bundle.cssRawBytes)}): ${r.bundle.totalGzipBytes <= 250 * 1024 ? 'within' : 'OVER'} 250 KB`,
    `  (b) first load, navigation start to the requests table: median ${r.firstLoad.medianTableMs} ms (${r.firstLoad.tableMs.join(', ')}); to the stream live: median ${r.firstLoad.medianLiveMs} ms: ${r.firstLoad.medianTableMs < 1000 ? 'under' : 'OVER'} 1 s`,
    `  (c) GET /v1/products, ${r.throughput.connections} connections, ${r.throughput.rounds} rounds: none open ${fmt(r.throughput.none.reqPerSec)} req/s (${r.throughput.none.serverCpuUsPerReq} us server CPU/req), a bare SSE client (as the page asks) ${fmt(r.throughput.sseClient.reqPerSec)} req/s (${r.throughput.sseClient.serverCpuUsPerReq} us/req, ratio ${r.throughput.sseClientRatio.toFixed(2)}), a page streaming ${fmt(r.throughput.streaming.reqPerSec)} req/s (${r.throughput.streaming.serverCpuUsPerReq} us/req; Chromium ${(r.throughput.chromiumCoreShare * 100).toFixed(1)}% of a core): ratio ${r.throughput.ratio.toFixed(2)} (${r.throughput.ratio >= 0.9 ? 'meets' : 'BELOW'} 0.9)`,
    `  (d) ${fmt(r.bigCollection.bookings)} bookings, navigation start to the first page's rows: median ${r.bigCollection.medianRowsMs} ms (${r.bigCollection.rowsMs.join(', ')}); the route alone ${r.bigCollection.apiFirstPageMs} ms: ${r.bigCollection.medianRowsMs < 1000 ? 'under' : 'OVER'} 1 s`,
  ].join('\n');
}
