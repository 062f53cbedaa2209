/**
 * `npm run bench`: the sandbox's performance figures, all from ONE run so the
 * ratios compare like with like on the same machine (docs/benchmarks.md).
 *
 *   npm run bench                  readable table on stdout, progress on stderr
 *   npm run bench -- --json        one JSON object on stdout instead
 *   npm run bench -- --only throughput --profile /tmp/prof
 *                                  CPU profile of the sandbox child under load
 *
 * Sections: 1 throughput vs a bare Fastify route, 2 spawn-to-first-response,
 * 3 write cost, 4 reset, 5 webhook latency (bench/webhook-latency.ts),
 * 6 form and booking creates at 1k and 100k records, 7 memory (idle RSS against
 * bare Fastify, RSS after 100k requests, 10k failed deliveries, 100k bookings),
 * 8 workspaces on demand, 9 1,000 workspaces reading (bench/workspace-reads.ts),
 * 10 the outbox soak: failing deliveries on a compressed schedule (bench/outbox-soak.ts), 11 the seed
 * beside a CPU hog (bench/seed.ts), 12 scale: list, read, create and patch at 10k and 100k bookings,
 * with the growth table (bench/scale.ts), 13 data: the inspector's routes on 100k bookings (bench/data.ts),
 * 14 the browser inspector: bundle size, first load, /v1 throughput with a page streaming, a 100k-row
 * collection's first page in Chromium (bench/inspector.ts), 15 stream: /v1 throughput with none and with
 * 100 default-option stream clients reading (bench/stream.ts), 16 snapshots: 400 of a workspace with 2,000
 * bookings and of the whole state, against the bounds, 17 import: /v1 latency during a 200 MB PUT /__sandbox/state
 * and RSS after it against a start with the same file (bench/bounds.ts), 18 bigstart: a start on a file of 100k
 * seeded bookings against a fixtures-only one, and the stop right after that seed (bench/bigstart.ts), 19 proxy: the latency
 * `sandbox proxy` adds at the median on loopback, against the target directly (bench/proxy.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { installChildCleanup, liveChildren, stopAll } from './lib/children.ts';
import { cliMode } from './lib/sandbox-child.ts';
import { formatReport, type BenchReport } from './report.ts';
import { runReset } from './reset.ts';
import { runStartup } from './startup.ts';
import { prepareTargets, runThroughput } from './throughput.ts';
import { runWebhooks } from './webhooks.ts';
import { runWriteCost } from './write-cost.ts';
import { runCreates } from './creates.ts';
import { runMemory } from './memory.ts';
import { runWorkspaces } from './workspaces.ts';
import { runWorkspaceReads } from './workspace-reads.ts';
import { runOutboxSoak } from './outbox-soak.ts';
import { runSeedBench } from './seed.ts';
import { runScale } from './scale.ts';
import { runDataBench } from './data.ts';
import { runInspectorBench } from './inspector.ts';
import { runStreamBench } from './stream.ts';
import { runImportBench, runSnapshotBounds } from './bounds.ts';
import { runBigStart } from './bigstart.ts';
import { runProxyBench } from './proxy.ts';

const SECTIONS = [
  'throughput',
  'reset',
  'startup',
  'writes',
  'webhooks',
  'creates',
  'memory',
  'workspaces',
  'workspace-reads',
  'outbox-soak',
  'seed',
  'scale',
  'data',
  'inspector',
  'stream',
  'snapshots',
  'import',
  'bigstart',
  'proxy',
] as const;
type Section = (typeof SECTIONS)[number];

const USAGE = `Usage: npm run bench -- [options]

Measures the sandbox against a bare Fastify server in the same run (docs/benchmarks.md).

  --only <sections>       comma-separated: ${SECTIONS.join(', ')}
  --json                  the report as JSON on stdout
  --connections <n>       load connections (32)      --duration <s>     seconds a round (5)
  --warmup <s>            warm-up seconds (1)        --rounds <n>       interleaved rounds (6)
  --startup-runs <n>      (9)                        --reset-runs <n>   (10)
  --memory-requests <n>   (100000)                   --memory-deliveries <n> (10000)
  --memory-bookings <n>   (20000)                    --soak-seconds <s> (180)
  --scale-sizes <a,b>     (10000,100000)             --data-bookings <n> (100000)
  --bigstart-bookings <n> (100000)                   --bigstart-runs <n> (3)
  --profile <dir>         write the sandbox's CPU profiles there
  -h, --help              this text
`;

/** A mistyped option is the user's to fix: one line, no stack (exit code 2, as the CLI's usage errors). */
class UsageError extends Error {}

function parseOptions() {
  const { values } = explainingUsage(() =>
    parseArgs({
      options: {
        json: { type: 'boolean', default: false },
        connections: { type: 'string', default: '32' },
        duration: { type: 'string', default: '5' },
        warmup: { type: 'string', default: '1' },
        rounds: { type: 'string', default: '6' },
        'startup-runs': { type: 'string', default: '9' },
        'reset-runs': { type: 'string', default: '10' },
        'memory-requests': { type: 'string', default: '100000' },
        'memory-deliveries': { type: 'string', default: '10000' },
        'memory-bookings': { type: 'string', default: '20000' },
        // 3 min: the bound is reached after ~30 s, and the curve is level well before 3 min (docs/benchmarks.md)
        'soak-seconds': { type: 'string', default: '180' },
        'scale-sizes': { type: 'string', default: '10000,100000' },
        'data-bookings': { type: 'string', default: '100000' },
        'bigstart-bookings': { type: 'string', default: '100000' },
        'bigstart-runs': { type: 'string', default: '3' },
        only: { type: 'string' },
        profile: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }),
  );
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const int = (name: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name} must be a number from ${min} to ${max}`);
    return n;
  };
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : [...SECTIONS];
  for (const s of only) if (!SECTIONS.includes(s as Section)) throw new UsageError(`--only takes ${SECTIONS.join(', ')}`);
  return {
    json: values.json,
    connections: int('connections', values.connections, 1, 256),
    durationMs: int('duration', values.duration, 0.5, 60) * 1000,
    warmupMs: int('warmup', values.warmup, 0, 10) * 1000,
    rounds: int('rounds', values.rounds, 1, 20),
    startupRuns: int('startup-runs', values['startup-runs'], 1, 20),
    resetRuns: int('reset-runs', values['reset-runs'], 1, 100),
    memoryRequests: int('memory-requests', values['memory-requests'], 10, 10_000_000),
    memoryDeliveries: int('memory-deliveries', values['memory-deliveries'], 10, 1_000_000),
    memoryBookings: int('memory-bookings', values['memory-bookings'], 0, 1_000_000),
    soakSeconds: int('soak-seconds', values['soak-seconds'], 10, 3600),
    scaleSizes: values['scale-sizes'].split(',').map((n) => int('scale-sizes', n, 100, 1_000_000)),
    dataBookings: int('data-bookings', values['data-bookings'], 100, 1_000_000),
    bigStartBookings: int('bigstart-bookings', values['bigstart-bookings'], 100, 1_000_000),
    bigStartRuns: int('bigstart-runs', values['bigstart-runs'], 1, 20),
    sections: new Set(only as Section[]),
    profileDir: values.profile,
  };
}

function explainingUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)} (npm run bench -- --help)`);
  }
}

type Options = ReturnType<typeof parseOptions>;
const log = (line: string) => process.stderr.write(`${line}\n`);

function newReport(options: Options): BenchReport {
  const { connections, durationMs, warmupMs, rounds, startupRuns, resetRuns } = options;
  return {
    date: new Date().toISOString(),
    machine: { node: process.version, cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? 'unknown', platform: `${process.platform}-${process.arch}` },
    sandboxCli: cliMode(),
    settings: { connections, durationMs, warmupMs, rounds, startupRuns, resetRuns },
    totalSeconds: 0,
    failures: {},
  };
}

/**
 * Runs the chosen sections in an order that keeps each one's machine quiet. A
 * failing section is recorded in report.failures and the others still run.
 */
async function runSections(options: Options, report: BenchReport, tmpDir: string): Promise<void> {
  const has = (section: Section) => options.sections.has(section);
  const attempt = async (sections: Section[], run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      for (const section of sections.filter(has)) report.failures[section] ??= message;
      log(`FAILED (${sections.filter(has).join(', ')}): ${message}`);
    }
  };
  const sandboxNodeArgs = options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', options.profileDir] : [];
  let bodyFile = '';
  if (has('throughput') || has('reset') || has('startup') || has('memory')) {
    await attempt(['throughput', 'reset', 'startup'], async () => {
      const throughputOptions = { ...options, sandboxNodeArgs, tmpDir, log };
      const prepared = await prepareTargets(throughputOptions);
      bodyFile = prepared.bodyFile; // the bare server of section 2 serves the same body
      await attempt(['throughput'], async () => {
        if (has('throughput')) report.throughput = await runThroughput(throughputOptions, prepared);
      });
      await attempt(['reset'], async () => {
        if (has('reset')) report.reset = await runReset(prepared.sandbox.origin, options.resetRuns, log);
      });
    });
    await stopAll(); // section 2 wants a quiet machine
  }
  if (has('startup') && bodyFile) {
    await attempt(['startup'], async () => {
      report.startup = await runStartup({ runs: options.startupRuns, pollIntervalMs: 5, bodyFile, tmpDir, log });
    });
  }
  if (has('webhooks')) report.webhooks = await runWebhooks(1000, log);
  if (has('writes')) await attempt(['writes'], async () => void (report.writes = await runWriteCost(log)));
  if (has('creates')) await attempt(['creates'], async () => void (report.creates = await runCreates(log)));
  if (has('memory') && bodyFile) {
    await attempt(['memory'], async () => {
      report.memory = await runMemory({
        requests: options.memoryRequests,
        deliveries: options.memoryDeliveries,
        bookings: options.memoryBookings,
        bodyFile,
        log,
      });
    });
  }
  if (has('workspaces')) await attempt(['workspaces'], async () => void (report.workspaces = await runWorkspaces(tmpDir, log)));
  if (has('workspace-reads')) {
    await attempt(['workspace-reads'], async () => {
      report.workspaceReads = [await runWorkspaceReads(tmpDir, 'file', log), await runWorkspaceReads(tmpDir, 'memory', log)];
    });
  }
  if (has('outbox-soak')) {
    await attempt(['outbox-soak'], async () => {
      report.outboxSoak = await runOutboxSoak({ seconds: options.soakSeconds, sampleSeconds: 10, tmpDir, log });
    });
  }
  if (has('seed')) await attempt(['seed'], async () => void (report.seed = await runSeedBench(log)));
  if (has('scale')) await attempt(['scale'], async () => void (report.scale = await runScale(options.scaleSizes, log)));
  if (has('data')) await attempt(['data'], async () => void (report.data = await runDataBench(options.dataBookings, log)));
  if (has('inspector')) await attempt(['inspector'], async () => void (report.inspector = await runInspectorBench({ ...options, log })));
  if (has('stream')) await attempt(['stream'], async () => void (report.stream = await runStreamBench({ ...options, log })));
  if (has('snapshots')) await attempt(['snapshots'], async () => void (report.snapshots = await runSnapshotBounds(log)));
  if (has('import')) await attempt(['import'], async () => void (report.import = await runImportBench(tmpDir, log)));
  if (has('proxy')) await attempt(['proxy'], async () => void (report.proxy = await runProxyBench({ log })));
  if (has('bigstart')) {
    await attempt(['bigstart'], async () => {
      report.bigStart = await runBigStart({ tmpDir, bookings: options.bigStartBookings, runs: options.bigStartRuns, log });
    });
  }
}

async function main(): Promise<void> {
  const options = parseOptions();
  installChildCleanup();
  const tmpDir = mkdtempSync(join(tmpdir(), 'tcs-bench-'));
  const removeTmp = () => rmSync(tmpDir, { recursive: true, force: true });
  process.once('exit', removeTmp); // also after Ctrl+C
  const started = performance.now();
  const report = newReport(options);
  try {
    await runSections(options, report, tmpDir);
  } finally {
    await stopAll();
    removeTmp();
  }
  report.totalSeconds = Math.round((performance.now() - started) / 100) / 10;
  if (liveChildren() > 0) throw new Error('a child process outlived the bench');
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  if (Object.keys(report.failures).length > 0) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`bench: ${err.message}`);
      process.exit(2);
    }
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
