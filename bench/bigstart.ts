import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startChild, stopChild, type Child } from './lib/children.ts';
import { freePort, HOST } from './lib/ports.ts';
import { AUTH_HEADERS, SANDBOX_BIN as DEFAULT_BIN, startSandbox } from './lib/sandbox-child.ts';
const SANDBOX_BIN = process.env.BIGSTART_BIN ?? DEFAULT_BIN;
import { median, round, sleep } from './lib/stats.ts';
import { rssMiB } from './memory.ts';

/**
 * Section 18, bigstart (docs/storage.md, "Opening a large file"): a big file is cheap to open. The
 * file is built the way a user builds one: `sandbox start --data`,
 * two seeds of 50,000 bookings (the cap of one run), then SIGTERM right after
 * the seed (the stop time is reported too: a stop within its deadline). Then, interleaved,
 * starts on that file and on a fixtures-only file: from spawn to the first
 * authenticated 200 (GET /v1/products, polled every 5 ms), then the first
 * page of bookings (the collection the file is big with), and RSS 20 s after
 * the spawn. Targets: first 200 within 2 s, RSS under 300 MiB.
 */
export interface BigStartRun {
  firstOkMs: number;
  /** CPU time (user + system) the sandbox had used at its first 200: less sensitive to a busy machine than the wall time */
  cpuAtFirstOkMs: number;
  /** spawn to the answer of the first GET /v1/bookings?limit=20, sent right after the first 200 */
  firstBookingsMs: number;
  rss20sMiB: number;
  /**
   * When RSS first fell under 300 MiB (sampled every 500 ms, up to 60 s), and the CPU time used
   * by then: on a busy machine the background deflating of the pages gets less of a core, so the
   * CPU figure says what it costs (NaN: not within 60 s)
   */
  under300AtMs: number;
  cpuAtUnder300Ms: number;
}

export interface BigStartResult {
  bookings: number;
  fileMiB: number;
  seedSeconds: number;
  /** SIGTERM right after the last seed's answer, to the exit */
  stopAfterSeedMs: number;
  stopExitCode: number | null;
  /** the journal the stop left, replayed by the first start after the seed (0: the stop compacted) */
  journalMiB: number;
  /** that first start, measured alone */
  firstAfterSeed: BigStartRun;
  big: BigStartRun[];
  fixtures: BigStartRun[];
  loadAverage: number[];
}

const RSS_AT_MS = 20_000;
const RSS_WATCH_MS = 60_000;
const RSS_TARGET_MIB = 300;
const START_TIMEOUT_MS = 120_000;

async function call(origin: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await request(`${origin}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : null };
}

/** A --data file with `bookings` seeded bookings in the live workspace, as a user makes one (`sandbox start --data`, then `POST /__sandbox/seed`, what `sandbox seed` sends). */
export async function buildBigFile(
  file: string,
  bookings: number,
  log: (line: string) => void,
): Promise<Pick<BigStartResult, 'bookings' | 'fileMiB' | 'seedSeconds' | 'stopAfterSeedMs' | 'stopExitCode' | 'journalMiB'>> {
  const sandbox = await startSandbox(['--data', file, '--no-rate-limits', '--port', '0']);
  let made = 0;
  const started = performance.now();
  try {
    const workspaces = (await call(sandbox.origin, 'GET', '/__sandbox/workspaces')).json;
    const workspaceId: string = workspaces.data.find((w: { mode: string }) => w.mode === 'live').id;
    for (let round = 0; made < bookings && round < 10; round++) {
      const want = Math.min(bookings - made, 50_000);
      log(`bigstart: seeding ${want.toLocaleString('en-US')} bookings into ${file} ...`);
      const { status, json } = await call(sandbox.origin, 'POST', '/__sandbox/seed', { workspaceId, bookings: want });
      if (status !== 200) throw new Error(`seed: ${status} ${JSON.stringify(json).slice(0, 200)}`);
      made += json.data.created.bookings;
    }
  } catch (err) {
    await stopChild(sandbox.child);
    throw err;
  }
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  const stopStarted = performance.now();
  await stopChild(sandbox.child, 30_000);
  const stopAfterSeedMs = round(performance.now() - stopStarted, 0);
  const journal = statSync(`${file}.journal`, { throwIfNoEntry: false });
  return {
    bookings: made,
    fileMiB: round(statSync(file).size / 1024 / 1024, 1),
    seedSeconds,
    stopAfterSeedMs,
    stopExitCode: sandbox.child.process.exitCode,
    journalMiB: round((journal?.size ?? 0) / 1024 / 1024, 1),
  };
}

/** CPU time of a child so far, from /proc (Linux; NaN elsewhere). */
function cpuMs(child: Child): number {
  try {
    const fields = readFileSync(`/proc/${child.process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/** One start on `file`: the first authenticated 200, the first bookings page, RSS at 20 s. */
export async function measureStart(file: string): Promise<BigStartRun> {
  const port = await freePort();
  const agent = new Agent({ connections: 1, connectTimeout: 1000 });
  const origin = `http://${HOST}:${port}`;
  const t0 = performance.now();
  const child: Child = startChild(process.execPath, [SANDBOX_BIN, 'start', '--json', '--no-rate-limits', '--port', String(port), '--data', file]);
  try {
    let firstOkMs = NaN;
    let cpuAtFirstOkMs = NaN;
    while (performance.now() - t0 < START_TIMEOUT_MS) {
      if (child.process.exitCode !== null) throw new Error(`child exited with ${child.process.exitCode}:\n${child.stderrTail()}`);
      try {
        const { statusCode, body } = await request(`${origin}/v1/products?limit=1`, { headers: AUTH_HEADERS, dispatcher: agent });
        await body.dump();
        if (statusCode === 200) {
          firstOkMs = performance.now() - t0;
          cpuAtFirstOkMs = cpuMs(child);
          break;
        }
      } catch {
        // not listening yet
      }
      await sleep(5);
    }
    if (Number.isNaN(firstOkMs)) throw new Error(`no 200 from a start on ${file} within ${START_TIMEOUT_MS} ms`);
    const { statusCode, body } = await request(`${origin}/v1/bookings?limit=20`, { headers: AUTH_HEADERS, dispatcher: agent });
    await body.dump();
    if (statusCode !== 200) throw new Error(`GET /v1/bookings: ${statusCode}`);
    const firstBookingsMs = performance.now() - t0;
    let rss20sMiB = NaN;
    let under300AtMs = NaN;
    let cpuAtUnder300Ms = NaN;
    for (;;) {
      const at = performance.now() - t0;
      if (Number.isNaN(rss20sMiB) && at >= RSS_AT_MS) rss20sMiB = rssMiB(child);
      if (Number.isNaN(under300AtMs) && rssMiB(child) < RSS_TARGET_MIB) {
        under300AtMs = round(at, 0);
        cpuAtUnder300Ms = round(cpuMs(child), 0);
      }
      if (!Number.isNaN(rss20sMiB) && (!Number.isNaN(under300AtMs) || at >= RSS_WATCH_MS)) break;
      await sleep(500);
    }
    return {
      firstOkMs: round(firstOkMs, 0),
      cpuAtFirstOkMs: round(cpuAtFirstOkMs, 0),
      firstBookingsMs: round(firstBookingsMs, 0),
      rss20sMiB,
      under300AtMs,
      cpuAtUnder300Ms,
    };
  } finally {
    await agent.close();
    await stopChild(child, 30_000);
  }
}

export async function runBigStart(options: { tmpDir: string; bookings: number; runs: number; log: (line: string) => void }): Promise<BigStartResult> {
  const { tmpDir, log } = options;
  const bigFile = join(tmpDir, 'bigstart-db.json');
  const fixturesFile = join(tmpDir, 'bigstart-fixtures.json');
  const built = await buildBigFile(bigFile, options.bookings, log);
  log(
    `bigstart: ${built.bookings.toLocaleString('en-US')} bookings, ${built.fileMiB} MiB; stopped ${built.stopAfterSeedMs} ms after the seed, leaving ${built.journalMiB} MiB of journal`,
  );
  log('bigstart: the first start after the seed (replays what the stop left in the journal) ...');
  const firstAfterSeed = await measureStart(bigFile);
  await stopChild((await startSandbox(['--data', fixturesFile, '--port', '0'])).child); // writes the fixtures-only file
  const big: BigStartRun[] = [];
  const fixtures: BigStartRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    log(`bigstart: run ${i + 1}/${options.runs}, fixtures-only file ...`);
    fixtures.push(await measureStart(fixturesFile));
    log(`bigstart: run ${i + 1}/${options.runs}, the big file ...`);
    big.push(await measureStart(bigFile));
  }
  const { loadavg } = await import('node:os');
  return { ...built, firstAfterSeed, big, fixtures, loadAverage: loadavg().map((x) => round(x, 2)) };
}

export function bigStartBlock(r: BigStartResult): string {
  const med = (runs: BigStartRun[], key: keyof BigStartRun) => round(median(runs.map((run) => run[key])), 0);
  const ratio = (key: keyof BigStartRun) => round(med(r.big, key) / med(r.fixtures, key), 1);
  const firstOk = med(r.big, 'firstOkMs');
  const rss = med(r.big, 'rss20sMiB');
  const list = (runs: BigStartRun[], key: keyof BigStartRun) => runs.map((run) => run[key]).join(', ');
  return [
    `18. bigstart: a --data file of ${r.bookings.toLocaleString('en-US')} seeded bookings (${r.fileMiB} MiB) against a fixtures-only file, ` +
      `${r.big.length} interleaved starts each (median; load average ${r.loadAverage.join(', ')})`,
    `  first authenticated 200: ${firstOk} ms vs ${med(r.fixtures, 'firstOkMs')} ms (${ratio('firstOkMs')}x; target < 2,000 ms: ${firstOk < 2000 ? 'met' : 'MISSED'}); runs ${list(r.big, 'firstOkMs')}`,
    `  CPU time used by the first 200: ${med(r.big, 'cpuAtFirstOkMs')} ms vs ${med(r.fixtures, 'cpuAtFirstOkMs')} ms (${ratio('cpuAtFirstOkMs')}x); runs ${list(r.big, 'cpuAtFirstOkMs')}`,
    `  first GET /v1/bookings?limit=20 answered at: ${med(r.big, 'firstBookingsMs')} ms vs ${med(r.fixtures, 'firstBookingsMs')} ms (${ratio('firstBookingsMs')}x); runs ${list(r.big, 'firstBookingsMs')}`,
    `  RSS 20 s after the spawn: ${rss} MiB vs ${med(r.fixtures, 'rss20sMiB')} MiB (${ratio('rss20sMiB')}x; target < 300 MiB: ${rss < 300 ? 'met' : 'MISSED'}); runs ${list(r.big, 'rss20sMiB')}`,
    `  RSS first under 300 MiB at: ${list(r.big, 'under300AtMs')} ms after the spawn, having used ${list(r.big, 'cpuAtUnder300Ms')} ms of CPU (NaN: not within 60 s)`,
    `  seeded in ${r.seedSeconds} s; SIGTERM right after the seed: exit code ${r.stopExitCode ?? 'none (killed by a signal)'} after ${r.stopAfterSeedMs} ms ` +
      `(--stop-timeout 3 s for requests in flight, then 5 s to flush), leaving ${r.journalMiB} MiB of journal`,
    `  the first start after that stop: first 200 at ${r.firstAfterSeed.firstOkMs} ms (${r.firstAfterSeed.cpuAtFirstOkMs} ms CPU), RSS ${r.firstAfterSeed.rss20sMiB} MiB at 20 s`,
  ].join('\n');
}
