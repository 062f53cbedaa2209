/**
 * `npx tsx bench/bundle.ts`: the failure bundle's bounds (docs/benchmarks.md, "The failure bundle").
 * A sandbox in memory with 10,000 seeded bookings, 1,000 /v1 requests over them (lists, reads,
 * refusals, creates), then the bundle `sandbox exec --bundle` writes: its size, gzip-compressed,
 * and how long collecting, compressing and writing it take (what it adds to exec's stop). Prints
 * one JSON object. Not a test: the machine's speed is not something a test may assert.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleBytes } from '../src/bundle/collect.ts';
import { readBundleFile, writeBundleFile } from '../src/bundle/file.ts';
import { createSandbox } from '../src/index.ts';

const BOOKINGS = 10_000;
const REQUESTS = 1_000;

const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', enforceRateLimits: false });
const workspace = sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
const key = workspace.keys.find((k) => k.scopes === null)!.key;
const control = (path: string, body: unknown) =>
  fetch(`${sandbox.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
await control('/seed', { workspaceId: workspace.id, bookings: BOOKINGS - 90 });

const v1 = (path: string, init: RequestInit = {}) => fetch(`${sandbox.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
const list = (await (await v1('/v1/bookings?limit=100')).json()) as { data: { id: string }[] };
for (let i = 0; i < REQUESTS; i++) {
  const booking = list.data[i % list.data.length]!;
  const answer =
    i % 10 === 0
      ? v1(`/v1/bookings/book_${'0'.repeat(8)}-0000-4000-8000-${String(i).padStart(12, '0')}`)
      : i % 3 === 0
        ? v1('/v1/bookings?limit=20')
        : v1(`/v1/bookings/${booking.id}`);
  await (await answer).arrayBuffer();
}

const dir = mkdtempSync(join(tmpdir(), 'bundle-bench-'));
const file = join(dir, 'b.json.gz');
const cpu0 = process.cpuUsage();
const t0 = performance.now();
// what exec does at the end of a run (src/cli/bundle.ts, saveExecBundle): read, compress, write
const bytes = await bundleBytes(sandbox.context, { run: { command: ['npm', 'test'], exitCode: 1 }, url: sandbox.url });
const t2 = performance.now();
await writeBundleFile(file, bytes);
const t3 = performance.now();
// the main thread's and the thread pool's (gzip) CPU together: on a loaded machine, what the work costs when nothing competes
const cpu = process.cpuUsage(cpu0);
const bundle = await readBundleFile(file);
const json = JSON.stringify(bundle).length;
console.log(
  JSON.stringify(
    {
      bookings: Object.values(bundle.state.collections.bookings ?? {})
        .flat()
        .reduce((n, table) => n + table.rows, 0),
      requests: bundle.requests.entries.length,
      withDetail: bundle.requests.withDetail,
      jsonMB: +(json / 1e6).toFixed(2),
      gzipMB: +(statSync(file).size / 1e6).toFixed(2),
      collectAndGzipMs: Math.round(t2 - t0),
      writeMs: Math.round(t3 - t2),
      totalMs: Math.round(t3 - t0),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    },
    null,
    2,
  ),
);
rmSync(dir, { recursive: true, force: true });
await sandbox.stop();
