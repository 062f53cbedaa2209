import type { ResetResult } from './reset.ts';
import { workspacesBlock, type WorkspacesResult } from './workspaces.ts';
import { workspaceReadsBlock, type WorkspaceReadsResult } from './workspace-reads.ts';
import type { StartupResult, StartupSeries } from './startup.ts';
import type { ThroughputResult } from './throughput.ts';
import type { WebhookResult } from './webhooks.ts';
import type { WriteCostResult } from './write-cost.ts';
import type { LoadResult } from './lib/load.ts';
import type { CreatesResult } from './creates.ts';
import type { MemoryResult } from './memory.ts';
import type { SoakResult } from './outbox-soak.ts';
import { seedBlock, type SeedBenchResult } from './seed.ts';
import { scaleBlock, type ScaleResult } from './scale.ts';
import { dataBlock, type DataBenchResult } from './data.ts';
import { boundsBlock, type ImportBenchResult, type SnapshotRun } from './bounds.ts';
import { inspectorBlock, type InspectorBenchResult } from './inspector.ts';
import { streamBlock, type StreamBenchResult } from './stream.ts';
import { bigStartBlock, type BigStartResult } from './bigstart.ts';
import { proxyBlock, type ProxyBenchResult } from './proxy.ts';

/** Everything `npm run bench -- --json` prints; sections not run are absent. */
export interface BenchReport {
  date: string;
  machine: { node: string; cpus: number; cpuModel: string; platform: string };
  /** how bin/sandbox.js ran the sandbox children */
  sandboxCli: string;
  settings: { connections: number; durationMs: number; warmupMs: number; rounds: number; startupRuns: number; resetRuns: number };
  totalSeconds: number;
  /** section -> error message, for sections that could not be measured */
  failures: Record<string, string>;
  throughput?: ThroughputResult;
  startup?: StartupResult;
  writes?: WriteCostResult;
  reset?: ResetResult;
  workspaces?: WorkspacesResult;
  workspaceReads?: WorkspaceReadsResult[];
  webhooks?: WebhookResult;
  creates?: CreatesResult;
  memory?: MemoryResult;
  outboxSoak?: SoakResult;
  seed?: SeedBenchResult;
  scale?: ScaleResult;
  data?: DataBenchResult;
  inspector?: InspectorBenchResult;
  stream?: StreamBenchResult;
  snapshots?: SnapshotRun[];
  import?: ImportBenchResult;
  bigStart?: BigStartResult;
  proxy?: ProxyBenchResult;
}

function table(head: string[], rows: (string | number)[][]): string {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ')}`;
  return [line(head), `  ${widths.map((w) => '-'.repeat(w)).join('   ')}`, ...cells.slice(1).map(line)].join('\n');
}

const fmt = (n: number) => n.toLocaleString('en-US');

function throughputBlock(t: ThroughputResult): string {
  const row = (label: string, r: LoadResult, ratio: string) => [
    label,
    fmt(r.reqPerSec),
    r.p50Ms,
    r.p99Ms,
    fmt(r.requests),
    r.errors,
    r.serverCpuUsPerReq,
    r.serverCpuShare,
    ratio,
  ];
  const verdict = t.ratio >= 1 ? 'meets the aim (>= 1.0)' : t.ratio >= 0.6 ? 'BELOW the aim of 1.0 (floor 0.6 holds)' : 'BELOW THE FLOOR OF 0.6';
  return [
    `1. GET ${t.path} (${t.items} items, ${fmt(t.bodyBytes)} B), ${t.connections} connections, ${t.rounds} rounds`,
    table(
      ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', 'server CPU us/req', 'cores', 'sandbox/x req/s'],
      [
        row('sandbox (auth, hooks, cached JSON)', t.sandbox, '1.00'),
        row('bare Fastify, serializes object', t.bare, t.ratio.toFixed(2)),
        row('bare Fastify, pre-serialized', t.barePreserialized, t.ratioVsPreserialized.toFixed(2)),
      ],
    ),
    `  ratio sandbox/bare = ${t.ratio.toFixed(2)}: ${verdict}${t.identicalBody ? '' : '  (WARNING: bodies differ)'}`,
    `  by server CPU per request: sandbox is ${t.cpuRatio.toFixed(2)}x the bare route, ${t.cpuRatioVsPreserialized.toFixed(2)}x the pre-serialized one (> 1 = cheaper)`,
  ].join('\n');
}

function startupBlock(s: StartupResult): string {
  const row = (label: string, x: StartupSeries) => [label, x.medianMs, x.minMs, x.maxMs, (x.medianMs / s.bare.medianMs).toFixed(1)];
  return [
    `2. spawn to first 200, median of ${s.runs} (poll every 5 ms)`,
    table(
      ['process', 'median ms', 'min ms', 'max ms', 'x bare'],
      [
        row('sandbox --in-memory: GET /v1/products', s.inMemory),
        row('sandbox --in-memory: GET /__sandbox/health', s.inMemoryHealth),
        row('sandbox --data <seeded file>: GET /v1/products', s.seeded),
        row('bare Fastify (node, no loader)', s.bare),
      ],
    ),
    `  first start on an empty --data file (creates and seeds it): ${s.firstSeedMs} ms`,
    '  (the control plane is built on its first request: a health probe pays for it, a first /v1 call does not)',
  ].join('\n');
}

function writesBlock(w: WriteCostResult): string {
  return [
    '3. one acknowledged write (file store, fsync on, single writer)',
    table(
      ['records', 'mean ms', 'p50 ms', 'in-memory part us'],
      [
        [fmt(w.at1k.records), w.at1k.meanAckMs, w.at1k.p50AckMs, w.at1k.meanApplyUs],
        [fmt(w.at100k.records), w.at100k.meanAckMs, w.at100k.p50AckMs, w.at100k.meanApplyUs],
      ],
    ),
    `  context: ${fmt(w.concurrentWritesPerSec)} writes/s with 50 writers at 10k; p99 ${w.p99At100kMs} ms with 4 writers at 100k (${w.p99At100kWhilePackingMs} ms right after the seed, while it packs)`,
    `  compaction at ${fmt(w.pause.records)} records under writes: max event-loop delay ${w.pause.maxEventLoopDelayMs} ms (target < 50; ` +
      `${w.pause.baselineMaxEventLoopDelayMs} ms with writes alone), one compaction ${w.pause.compactionMs} ms`,
  ].join('\n');
}

function resetBlock(r: ResetResult): string {
  return [
    `4. POST /__sandbox/reset, median of ${r.runs}: ${r.medianMs} ms at the client (max ${r.maxMs}), ${r.serverMedianMs} ms inside the sandbox`,
    `   snapshot restore of the default fixtures, median of ${r.restore.runs}: ${r.restore.medianMs} ms at the client (max ${r.restore.maxMs}), ${r.restore.serverMedianMs} ms inside the sandbox${r.healthyAfter ? '' : '  (WARNING: API unhealthy afterwards)'}`,
  ].join('\n');
}

function webhooksBlock(w: WebhookResult): string {
  if (w.status === 'error') return `5. webhook latency: hook failed: ${w.message}`;
  return `5. webhook latency over ${w.count} deliveries: median ${w.medianMs} ms, p99 ${w.p99Ms} ms`;
}

function createsBlock(c: CreatesResult): string {
  const verdict = (ratio: number) => (ratio >= 0.5 ? 'within 2x' : 'SLOWER THAN 2x');
  return [
    '6. creates through the API, one after another (file store, fsync on)',
    table(
      ['records in the workspace', 'forms/s', 'bookings/s'],
      [
        [fmt(c.at1k.records), fmt(c.at1k.formsPerSec), fmt(c.at1k.bookingsPerSec)],
        [fmt(c.at100k.records), fmt(c.at100k.formsPerSec), fmt(c.at100k.bookingsPerSec)],
      ],
    ),
    `  at 100k / at 1k: forms ${c.formsRatio} (${verdict(c.formsRatio)}), bookings ${c.bookingsRatio} (${verdict(c.bookingsRatio)})`,
  ].join('\n');
}

function memoryBlock(m: MemoryResult): string {
  const idle = m.idleMiB < 80 ? 'meets the target (< 80 MiB)' : 'ABOVE the target of 80 MiB';
  const at100k = m.bookings >= 100_000 ? m.withBookingsMiB : m.estimatedAt100kMiB;
  const booked = at100k < 300 ? 'meets the target (< 300 MiB)' : 'ABOVE the target of 300 MiB';
  return [
    '7. memory (RSS, 1 s after the last request)',
    `  idle after start: sandbox ${m.idleMiB} MiB, bare Fastify ${m.bareIdleMiB} MiB, ratio ${m.idleRatio}: ${idle}`,
    `  after requests: ${m.afterRequests.map((x) => `${fmt(x.requests)}: ${x.mib} MiB`).join(', ')}`,
    `  after failed webhook deliveries: ${m.afterFailedDeliveries.map((x) => `${fmt(x.deliveries)}: ${x.mib} MiB`).join(', ')}`,
    `  with ${fmt(m.bookings)} more bookings: ${m.withBookingsMiB} MiB (from ${m.beforeBookingsMiB}; ${(m.withBookingsMiB / m.bareIdleMiB).toFixed(1)}x bare idle)`,
    `  then after reading one booking (builds the passenger and item indexes): ${m.afterReadingMiB} MiB`,
    `  at 100k bookings: ${at100k} MiB${m.bookings >= 100_000 ? '' : ' (straight-line estimate)'}: ${booked}`,
  ].join('\n');
}

function soakBlock(s: SoakResult): string {
  const rss = s.maxRssMiB < 200 ? 'meets the target (< 200 MiB)' : 'ABOVE the target of 200 MiB';
  const disk = s.maxDiskMB < 100 ? 'meets the target (< 100 MB)' : 'ABOVE the target of 100 MB';
  return [
    `10. outbox soak: ${s.seconds} s, ${s.eventsPerSecond} failing booking.created/s, retry scale 0.001, file store`,
    table(
      ['s', 'RSS MiB', 'db.json MB', 'journal MB', 'events'],
      s.samples.map((x) => [fmt(x.seconds), String(x.rssMiB), String(x.dbMB), String(x.journalMB), fmt(x.emitted)]),
    ),
    `  max RSS ${s.maxRssMiB} MiB: ${rss}; max db.json + journal ${s.maxDiskMB} MB: ${disk}; last / at a third ${s.lateGrowth}`,
  ].join('\n');
}

export function formatReport(r: BenchReport): string {
  const blocks = [
    `travel-commerce-sandbox bench, ${r.date}`,
    `node ${r.machine.node}, ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.platform}; sandbox CLI ran as: ${r.sandboxCli}`,
  ];
  if (!r.sandboxCli.startsWith('dist bundle')) {
    blocks[1] += '\n  note: dist/ is older than src/, so bin/sandbox.js compiled the sources with tsx; `npm run build` first to measure the bundled start';
  }
  if (r.throughput) blocks.push(throughputBlock(r.throughput));
  if (r.startup) blocks.push(startupBlock(r.startup));
  if (r.writes) blocks.push(writesBlock(r.writes));
  if (r.reset) blocks.push(resetBlock(r.reset));
  if (r.webhooks) blocks.push(webhooksBlock(r.webhooks));
  if (r.creates) blocks.push(createsBlock(r.creates));
  if (r.memory) blocks.push(memoryBlock(r.memory));
  if (r.workspaces) blocks.push(workspacesBlock(r.workspaces));
  if (r.workspaceReads) blocks.push(workspaceReadsBlock(r.workspaceReads));
  if (r.outboxSoak) blocks.push(soakBlock(r.outboxSoak));
  if (r.seed) blocks.push(seedBlock(r.seed));
  if (r.scale) blocks.push(scaleBlock(r.scale, table));
  if (r.data) blocks.push(dataBlock(r.data));
  if (r.inspector) blocks.push(inspectorBlock(r.inspector));
  if (r.stream) blocks.push(streamBlock(r.stream));
  if (r.snapshots || r.import) blocks.push(boundsBlock(r.snapshots, r.import));
  if (r.bigStart) blocks.push(bigStartBlock(r.bigStart));
  if (r.proxy) blocks.push(proxyBlock(r.proxy));
  for (const [section, message] of Object.entries(r.failures)) blocks.push(`FAILED ${section}: ${message.trim()}`);
  blocks.push(`total ${r.totalSeconds} s`);
  return `\n${blocks.join('\n\n')}\n`;
}
