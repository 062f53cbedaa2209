import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { Loader, summarize, type LoadResult, type LoadSample, type LoadTarget } from './lib/load.ts';
import { round } from './lib/stats.ts';
import { AUTH_HEADERS, startBareServer, startSandbox, type RunningSandbox } from './lib/sandbox-child.ts';

export interface ThroughputOptions {
  connections: number;
  /** measured time per target, split over the rounds */
  durationMs: number;
  /** warm-up of each target, once, before the first round */
  warmupMs: number;
  rounds: number;
  /** extra node flags for the sandbox child (e.g. --cpu-prof) */
  sandboxNodeArgs: string[];
  tmpDir: string;
  log: (line: string) => void;
}

export interface ThroughputResult {
  path: string;
  items: number;
  bodyBytes: number;
  /** the bare /parsed route produced the very same bytes as the sandbox */
  identicalBody: boolean;
  connections: number;
  rounds: number;
  sandbox: LoadResult;
  bare: LoadResult;
  barePreserialized: LoadResult;
  /** sandbox req/s divided by the bare route's (>= 1.0 is the aim, never below 0.6) */
  ratio: number;
  ratioVsPreserialized: number;
  /**
   * bare CPU per request divided by the sandbox's: the req/s ratio the two
   * would reach if each had a core to itself (> 1: the sandbox is cheaper)
   */
  cpuRatio: number;
  cpuRatioVsPreserialized: number;
}

export const PRODUCTS_PATH = '/v1/products';

async function fetchText(origin: string, path: string, headers: Record<string, string> = {}): Promise<string> {
  const { statusCode, body } = await request(`${origin}${path}`, { headers });
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`GET ${path}: ${statusCode} ${text.slice(0, 200)}`);
  return text;
}

export interface PreparedTargets {
  sandbox: RunningSandbox;
  bareOrigin: string;
  barePid: number | undefined;
  text: string;
  bodyFile: string;
}

/**
 * Starts the sandbox (left running for the reset section; the caller stops
 * it), fetches the products page once, and starts the bare server on the same
 * body (written to bodyFile, which section 2 reuses).
 */
export async function prepareTargets(options: Pick<ThroughputOptions, 'sandboxNodeArgs' | 'tmpDir' | 'log'>): Promise<PreparedTargets> {
  options.log('throughput: starting the sandbox (--in-memory --no-rate-limits) ...');
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0'], options.sandboxNodeArgs);
  const text = await fetchText(sandbox.origin, PRODUCTS_PATH, AUTH_HEADERS);
  const bodyFile = join(options.tmpDir, 'products.json');
  writeFileSync(bodyFile, text);
  options.log('throughput: starting the bare Fastify server ...');
  const bare = await startBareServer(bodyFile);
  return { sandbox, bareOrigin: bare.origin, barePid: bare.child.process.pid, text, bodyFile };
}

/**
 * Section 1: after a warm-up of each, loads the three targets in short
 * rounds, interleaved, so that a burst of load from other processes on the
 * machine is shared out rather than landing on one target.
 */
export async function runThroughput(options: ThroughputOptions, prepared: PreparedTargets): Promise<ThroughputResult> {
  const { sandbox, bareOrigin, barePid, text } = prepared;
  const sandboxPid = sandbox.child.process.pid;
  const bodyBytes = Buffer.byteLength(text);
  const items = (JSON.parse(text) as { data?: unknown[] }).data?.length ?? 0;
  const identicalBody = (await fetchText(bareOrigin, '/parsed')) === text;

  const targets: LoadTarget[] = [
    { name: 'sandbox', origin: sandbox.origin, path: PRODUCTS_PATH, headers: AUTH_HEADERS, expectBytes: bodyBytes, pid: sandboxPid },
    { name: 'bare', origin: bareOrigin, path: '/parsed', expectBytes: bodyBytes, pid: barePid },
    { name: 'barePreserialized', origin: bareOrigin, path: '/preserialized', expectBytes: bodyBytes, pid: barePid },
  ];
  const loaders = targets.map((t) => new Loader(t, options.connections));
  const samples = new Map<string, LoadSample[]>(targets.map((t) => [t.name, []]));
  const perRound = Math.max(250, Math.round(options.durationMs / options.rounds));
  try {
    for (const loader of loaders) {
      options.log(`throughput: warming up ${loader.target.name} (${options.warmupMs} ms) ...`);
      await loader.run(options.warmupMs);
    }
    for (let r = 0; r < options.rounds; r++) {
      options.log(`throughput: round ${r + 1}/${options.rounds}, ${perRound} ms per target ...`);
      // alternate the order, so drift on a shared machine hits every target alike
      for (const loader of r % 2 === 0 ? loaders : [...loaders].reverse()) {
        samples.get(loader.target.name)!.push(await loader.run(perRound));
      }
    }
  } finally {
    await Promise.all(loaders.map((l) => l.close()));
  }
  const [s, b, p] = targets.map((t) => summarize(t.name, samples.get(t.name)!)) as [LoadResult, LoadResult, LoadResult];
  return {
    path: PRODUCTS_PATH,
    items,
    bodyBytes,
    identicalBody,
    connections: options.connections,
    rounds: options.rounds,
    sandbox: s,
    bare: b,
    barePreserialized: p,
    ratio: round(s.reqPerSec / b.reqPerSec, 2),
    ratioVsPreserialized: round(s.reqPerSec / p.reqPerSec, 2),
    cpuRatio: round(b.serverCpuUsPerReq / s.serverCpuUsPerReq, 2),
    cpuRatioVsPreserialized: round(p.serverCpuUsPerReq / s.serverCpuUsPerReq, 2),
  };
}
