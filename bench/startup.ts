import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startChild, stopChild, type Child } from './lib/children.ts';
import { freePort, HOST } from './lib/ports.ts';
import { AUTH_HEADERS, BARE_SERVER, SANDBOX_BIN } from './lib/sandbox-child.ts';
import { median, round, sleep } from './lib/stats.ts';
import { PRODUCTS_PATH } from './throughput.ts';

export interface StartupOptions {
  runs: number;
  pollIntervalMs: number;
  /** the body file written by the throughput section, for the bare server */
  bodyFile: string;
  tmpDir: string;
  log: (line: string) => void;
}

export interface StartupSeries {
  medianMs: number;
  minMs: number;
  maxMs: number;
  runsMs: number[];
}

export interface StartupResult {
  runs: number;
  inMemory: StartupSeries;
  /** the same start, polled on the control plane's health route (built on its first request) */
  inMemoryHealth: StartupSeries;
  seeded: StartupSeries;
  bare: StartupSeries;
  /** first start on an empty --data file (creates and seeds it), once, for context */
  firstSeedMs: number;
}

const START_TIMEOUT_MS = 60_000;

interface Launch {
  args: (port: number) => string[];
  path: string;
  headers: Record<string, string>;
}

/**
 * Spawns the command and polls GET path every pollIntervalMs from the moment
 * of spawn; returns the time until the first 200. The child is stopped
 * (SIGTERM: the sandbox flushes its file) before returning.
 */
async function spawnToFirstResponse(launch: Launch, pollIntervalMs: number): Promise<number> {
  const port = await freePort();
  const agent = new Agent({ connections: 1, connectTimeout: 1000 });
  const t0 = performance.now();
  const child: Child = startChild(process.execPath, launch.args(port));
  try {
    while (performance.now() - t0 < START_TIMEOUT_MS) {
      if (child.process.exitCode !== null) throw new Error(`child exited with ${child.process.exitCode}:\n${child.stderrTail()}`);
      try {
        const { statusCode, body } = await request(`http://${HOST}:${port}${launch.path}`, { headers: launch.headers, dispatcher: agent });
        await body.dump();
        if (statusCode === 200) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      await sleep(pollIntervalMs);
    }
    throw new Error(`no 200 from ${launch.args(port).join(' ')} within ${START_TIMEOUT_MS} ms`);
  } finally {
    await agent.close();
    await stopChild(child);
  }
}

function series(values: number[]): StartupSeries {
  return {
    medianMs: round(median(values), 1),
    minMs: round(Math.min(...values), 1),
    maxMs: round(Math.max(...values), 1),
    runsMs: values.map((v) => round(v, 1)),
  };
}

/** Section 2: in-memory start, second start of a seeded file, bare Fastify; runs interleaved. */
export async function runStartup(options: StartupOptions): Promise<StartupResult> {
  const dbFile = join(options.tmpDir, 'db.json');
  const sandboxArgs = (extra: string[]) => (port: number) => [SANDBOX_BIN, 'start', '--json', '--no-rate-limits', '--port', String(port), ...extra];
  const launches = {
    inMemory: { args: sandboxArgs(['--in-memory']), path: `${PRODUCTS_PATH}?limit=1`, headers: AUTH_HEADERS },
    inMemoryHealth: { args: sandboxArgs(['--in-memory']), path: '/__sandbox/health', headers: {} },
    seeded: { args: sandboxArgs(['--data', dbFile]), path: `${PRODUCTS_PATH}?limit=1`, headers: AUTH_HEADERS },
    bare: { args: (port: number) => [BARE_SERVER, '--body', options.bodyFile, '--port', String(port)], path: '/parsed', headers: {} },
  } satisfies Record<string, Launch>;

  options.log('startup: first start on an empty --data file (seeds it) ...');
  const firstSeedMs = await spawnToFirstResponse(launches.seeded, options.pollIntervalMs);
  const times: Record<keyof typeof launches, number[]> = { inMemory: [], inMemoryHealth: [], seeded: [], bare: [] };
  for (let i = 0; i < options.runs; i++) {
    for (const name of Object.keys(launches) as (keyof typeof launches)[]) {
      options.log(`startup: run ${i + 1}/${options.runs} ${name} ...`);
      times[name].push(await spawnToFirstResponse(launches[name], options.pollIntervalMs));
    }
  }
  return {
    runs: options.runs,
    inMemory: series(times.inMemory),
    inMemoryHealth: series(times.inMemoryHealth),
    seeded: series(times.seeded),
    bare: series(times.bare),
    firstSeedMs: round(firstSeedMs, 1),
  };
}
