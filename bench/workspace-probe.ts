/**
 * In-process probe of many created workspaces reading at once: an in-memory sandbox, N created
 * workspaces each reading a page of products and of bookings through
 * app.inject, heap before and after (forced GC), then one global reset.
 * Not part of `npm run bench` (section 9 measures the same through HTTP).
 *
 *   node --expose-gc --import tsx bench/workspace-probe.ts [--workspaces 200] [--snapshot /tmp/x.heapsnapshot]
 */
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox.ts';

const { values } = parseArgs({ options: { workspaces: { type: 'string', default: '200' }, snapshot: { type: 'string' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
const used = () => {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
};
const sandbox = await createSandbox({ storage: 'memory', listen: false, enforceRateLimits: false });
const n = Number(values.workspaces);
const keys: string[] = [];
for (let i = 0; i < n; i++) keys.push((await sandbox.createWorkspace({ name: `probe ${i}` })).keys[0]!.key);
const created = used();
for (const key of keys) {
  for (const url of ['/v1/products', '/v1/bookings']) {
    const res = await sandbox.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode !== 200) console.error(url, res.statusCode, res.body.slice(0, 200));
  }
}
const read = used();
if (values.snapshot) writeHeapSnapshot(values.snapshot);
const t0 = performance.now();
await sandbox.reset();
const resetMs = Math.round(performance.now() - t0);
const after = used();
const stats = (sandbox.store as { cacheStats?: unknown }).cacheStats;
console.log(
  JSON.stringify({
    workspaces: n,
    heapCreatedMiB: mib(created),
    heapReadMiB: mib(read),
    perWorkspaceKiB: Math.round((read - created) / n / 1024),
    resetMs,
    heapAfterResetMiB: mib(after),
    rssMiB: mib(process.memoryUsage().rss),
    ...(stats ? { stats } : {}),
  }),
);
await sandbox.stop();
