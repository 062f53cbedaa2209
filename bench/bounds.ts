import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { stopChild } from './lib/children.ts';
import { AUTH_HEADERS, startSandbox, type RunningSandbox } from './lib/sandbox-child.ts';
import { percentile, round, sleep } from './lib/stats.ts';
import { rssMiB } from './memory.ts';

/**
 * Sections "snapshots" and "import" (docs/configuration.md, "Bounds").
 *
 * snapshots: 400 `POST /__sandbox/workspaces/:id/snapshots` of a created
 * workspace with 2,000 bookings, then (those deleted) 400 `POST /__sandbox/snapshots`,
 * on a fresh `sandbox start --in-memory` with the default bounds. RSS before
 * and after, and where the first 409 came.
 *
 * import: `PUT /__sandbox/state` of a ~200 MB export (the fixture state with
 * bookings copied under new ids) while a client sends `GET /v1/products?limit=1`
 * one after another: the p99 and worst latency of those during the import, and
 * RSS after it, against a sandbox started with the same file as `--data`.
 */
export interface SnapshotRun {
  label: string;
  snapshotBytes: number;
  workspaceSaved: number;
  workspaceFirstRefusal: number | null;
  stateSnapshotBytes: number;
  stateSaved: number;
  stateFirstRefusal: number | null;
  refusal: string | null;
  rssBeforeMiB: number;
  /** after the workspace's series */
  rssWorkspaceMiB: number;
  /** after the whole state's series too */
  rssAfterMiB: number;
}

export interface ImportBenchResult {
  bodyMiB: number;
  importSeconds: number;
  v1Requests: number;
  v1P50Ms: number;
  v1P99Ms: number;
  v1MaxMs: number;
  /** GET /v1/bookings?limit=1 right after (the first read of the large collection) */
  firstBookingsReadMs: number;
  rssAfterImportMiB: number;
  rssAtStartWithFileMiB: number;
  ratio: number;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; reason: string; ms: number }> {
  const started = performance.now();
  const res = await request(`${origin}${path}`, {
    method: method as 'GET',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, reason: String(res.headers['x-sandbox-reason'] ?? ''), ms: performance.now() - started };
}

async function ok(origin: string, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await call(origin, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
  return JSON.parse(res.text);
}

const liveWorkspace = async (origin: string): Promise<string> =>
  (await ok(origin, 'GET', '/__sandbox/workspaces')).data.find((w: { mode: string }) => w.mode === 'live').id;

async function snapshotRun(label: string, args: string[], log: (line: string) => void): Promise<SnapshotRun> {
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0', ...args]);
  try {
    const { origin } = sandbox;
    // a created workspace: its snapshot is its own rows, the 2,000 bookings written into it
    const ws: string = (await ok(origin, 'POST', '/__sandbox/workspaces', {})).data.id;
    await ok(origin, 'POST', '/__sandbox/seed', { workspaceId: ws, bookings: 2000, products: 10 });
    await sleep(1000);
    const rssBeforeMiB = rssMiB(sandbox.child);
    log(`snapshots (${label}): 400 of workspace ${ws}, then 400 of the whole state ...`);
    const run = {
      workspaceSaved: 0,
      workspaceFirstRefusal: null as number | null,
      snapshotBytes: 0,
      stateSaved: 0,
      stateFirstRefusal: null as number | null,
      stateSnapshotBytes: 0,
      refusal: null as string | null,
    };
    for (let i = 1; i <= 400; i++) {
      const res = await call(origin, 'POST', `/__sandbox/workspaces/${ws}/snapshots`, { name: `s${i}` });
      if (res.status === 201) {
        run.workspaceSaved++;
        run.snapshotBytes = JSON.parse(res.text).data.bytes;
      } else if (res.status === 409) {
        run.workspaceFirstRefusal ??= i;
        run.refusal ??= res.reason;
      } else throw new Error(`snapshot ${i}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    const rssWorkspaceMiB = rssMiB(sandbox.child);
    // the whole state's series starts from an empty shelf
    for (let i = 1; i <= 400; i++) await call(origin, 'DELETE', `/__sandbox/workspaces/${ws}/snapshots/s${i}`);
    for (let i = 1; i <= 400; i++) {
      const res = await call(origin, 'POST', '/__sandbox/snapshots', { name: `g${i}` });
      if (res.status === 201) {
        run.stateSaved++;
        run.stateSnapshotBytes = JSON.parse(res.text).data.bytes;
      } else if (res.status === 409) {
        run.stateFirstRefusal ??= i;
        run.refusal ??= res.reason;
      } else throw new Error(`state snapshot ${i}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    await sleep(1000);
    return { label, ...run, rssBeforeMiB, rssWorkspaceMiB, rssAfterMiB: rssMiB(sandbox.child) };
  } finally {
    await stopChild(sandbox.child);
  }
}

export async function runSnapshotBounds(log: (line: string) => void): Promise<SnapshotRun[]> {
  // with the defaults, the bound on bytes (128 MiB) is met long before the 100 per workspace
  return [await snapshotRun('defaults', [], log)];
}

/**
 * The sandbox's export with bookings copied under new ids until the file is about `targetBytes`,
 * written a row at a time: the bench process keeps no large object whose collection could pause
 * it (and so its requests) during the measurement.
 */
async function largeState(origin: string, targetBytes: number, file: string): Promise<number> {
  const state = await ok(origin, 'GET', '/__sandbox/state');
  const ws = await liveWorkspace(origin);
  const samples = Object.values(state.collections.bookings[ws] as Record<string, Json>);
  state.collections.bookings[ws] = { '~fill': 0 };
  const [head, tail] = JSON.stringify(state).split('"~fill":0') as [string, string];
  const fd = openSync(file, 'w');
  let bytes = 0;
  const write = (text: string) => (bytes += writeSync(fd, text));
  try {
    write(head);
    for (let i = 0; bytes + tail.length < targetBytes || i < samples.length; i++) {
      const row = i < samples.length ? samples[i] : { ...samples[i % samples.length], id: `book_${randomUUID()}` };
      write(`${i > 0 ? ',' : ''}${JSON.stringify(row.id)}:${JSON.stringify(row)}`);
    }
    write(tail);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/** RSS once settled: the least of ten samples a second apart (V8 gives memory back some seconds after a peak, unevenly) */
async function settledRssMiB(sandbox: RunningSandbox): Promise<number> {
  let least = Infinity;
  for (let i = 0; i < 10; i++) {
    await sleep(1000);
    least = Math.min(least, rssMiB(sandbox.child));
  }
  return least;
}

async function measureImport(sandbox: RunningSandbox, body: Buffer, log: (line: string) => void) {
  const { origin } = sandbox;
  let done = false;
  const latencies: number[] = [];
  const reads = (async () => {
    while (!done) {
      const res = await call(origin, 'GET', '/v1/products?limit=1', undefined, AUTH_HEADERS);
      if (res.status !== 200) throw new Error(`GET /v1/products during the import: ${res.status}`);
      // every request sent before the import's answer counts, the one it held until then too
      latencies.push(res.ms);
    }
  })();
  await sleep(200);
  log(`import: PUT /__sandbox/state of ${round(body.length / 1024 / 1024, 1)} MiB ...`);
  const started = performance.now();
  const put = await call(origin, 'PUT', '/__sandbox/state', body);
  const importSeconds = (performance.now() - started) / 1000;
  done = true;
  await reads;
  if (put.status !== 200) throw new Error(`PUT /__sandbox/state: ${put.status} ${put.text.slice(0, 300)}`);
  return { importSeconds, latencies };
}

export async function runImportBench(tmpDir: string, log: (line: string) => void, targetMiB = 200): Promise<ImportBenchResult> {
  const file = join(tmpDir, 'import-state.json');
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  let result: Omit<ImportBenchResult, 'rssAtStartWithFileMiB' | 'ratio'>;
  try {
    log(`import: building a ${targetMiB} MB state ...`);
    const bytes = await largeState(sandbox.origin, targetMiB * 1024 * 1024, file);
    const body = readFileSync(file);
    const { importSeconds, latencies } = await measureImport(sandbox, body, log);
    const firstBookingsReadMs = (await call(sandbox.origin, 'GET', '/v1/bookings?limit=1', undefined, AUTH_HEADERS)).ms;
    const rssAfterImportMiB = await settledRssMiB(sandbox);
    const sorted = latencies.sort((a, b) => a - b);
    result = {
      bodyMiB: round(bytes / 1024 / 1024, 1),
      importSeconds: round(importSeconds, 1),
      v1Requests: sorted.length,
      v1P50Ms: round(percentile(sorted, 50), 1),
      v1P99Ms: round(percentile(sorted, 99), 1),
      v1MaxMs: round(sorted.at(-1) ?? NaN, 1),
      firstBookingsReadMs: round(firstBookingsReadMs, 1),
      rssAfterImportMiB,
    };
  } finally {
    await stopChild(sandbox.child);
  }
  log('import: the same file as --data at start ...');
  const started = await startSandbox(['--data', file, '--no-rate-limits', '--port', '0']);
  try {
    await call(started.origin, 'GET', '/v1/bookings?limit=1', undefined, AUTH_HEADERS);
    const rssAtStartWithFileMiB = await settledRssMiB(started);
    return { ...result, rssAtStartWithFileMiB, ratio: round(result.rssAfterImportMiB / rssAtStartWithFileMiB, 2) };
  } finally {
    await stopChild(started.child);
  }
}

export function boundsBlock(snapshots: SnapshotRun[] | undefined, imported: ImportBenchResult | undefined): string {
  const lines: string[] = [];
  for (const s of snapshots ?? []) {
    lines.push(
      `Snapshots (${s.label}): workspace snapshot ${round(s.snapshotBytes / 1024 / 1024, 2)} MiB, ${s.workspaceSaved}/400 saved (first 409 at #${s.workspaceFirstRefusal ?? '-'}); ` +
        `whole-state snapshot ${round(s.stateSnapshotBytes / 1024 / 1024, 2)} MiB, ${s.stateSaved}/400 saved (first 409 at #${s.stateFirstRefusal ?? '-'})`,
      `  RSS ${s.rssBeforeMiB} MiB before, ${s.rssWorkspaceMiB} MiB after the workspace's, ${s.rssAfterMiB} MiB after the whole state's (${round(s.rssAfterMiB / s.rssBeforeMiB, 2)}x)`,
      ...(s.refusal ? [`  first refusal: ${s.refusal}`] : []),
    );
  }
  if (imported) {
    lines.push(
      `Import: PUT /__sandbox/state of ${imported.bodyMiB} MiB in ${imported.importSeconds} s; GET /v1/products during it: ${imported.v1Requests} requests, p50 ${imported.v1P50Ms} ms, p99 ${imported.v1P99Ms} ms, max ${imported.v1MaxMs} ms`,
      `  first GET /v1/bookings after it: ${imported.firstBookingsReadMs} ms; RSS after ${imported.rssAfterImportMiB} MiB vs ${imported.rssAtStartWithFileMiB} MiB started with the file as --data (${imported.ratio}x)`,
    );
  }
  return lines.join('\n');
}
