/**
 * In-process probe of what a created workspace costs: where its memory
 * and the first create's time go. An in-memory sandbox (or `--data` file),
 * the first create timed in parts, then N creates never read, heap measured
 * after forced GCs, and the rows each create commits, by collection and size.
 * Not part of `npm run bench` (section 8 measures RSS through HTTP).
 *
 *   node --expose-gc --import tsx bench/workspace-cost.ts [--workspaces 300] [--data /tmp/x/db.json]
 */
import { getHeapStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { createSandbox } from '../src/sandbox.ts';
import { parsedFixtures } from '../src/workspaces/templates.ts';
import type { Op } from '../src/storage/types.ts';

const { values } = parseArgs({ options: { workspaces: { type: 'string', default: '300' }, data: { type: 'string' } } });
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const kib = (bytes: number) => Math.round(bytes / 102.4) / 10;
const heap = () => {
  gc();
  gc();
  return getHeapStatistics().used_heap_size;
};

const sandbox = await createSandbox({ storage: values.data ?? 'memory', listen: false, enforceRateLimits: false });
const committed: Op[][] = [];
const commitMs: number[] = [];
const commit = sandbox.store.commit.bind(sandbox.store);
sandbox.store.commit = async (ops) => {
  committed.push([...ops]);
  const started = performance.now();
  try {
    return await commit(ops);
  } finally {
    commitMs.push(performance.now() - started);
  }
};

const beforeFirst = heap();
const json = await (sandbox.context.workspaces as unknown as { deps: { fixtureJson: () => Promise<string> } }).deps.fixtureJson();
let t = performance.now();
parsedFixtures(json);
const parseMs = performance.now() - t;
t = performance.now();
await sandbox.createWorkspace({ name: 'first' });
const firstMs = performance.now() - t;
const afterFirst = heap();
const firstOps = committed.splice(0).flat();
const firstCommitMs = commitMs.reduce((a, b) => a + b, 0);
t = performance.now();
await sandbox.createWorkspace({ name: 'second' });
const secondMs = performance.now() - t;
committed.length = 0;

const n = Number(values.workspaces);
const start = heap();
for (let i = 0; i < n; i++) await sandbox.createWorkspace({ name: `cost ${i}` });
const end = heap();
const perCreate = new Map<string, { rows: number; jsonBytes: number }>();
for (const op of committed.flat()) {
  if (op.type !== 'put') continue;
  const entry = perCreate.get(op.collection) ?? { rows: 0, jsonBytes: 0 };
  entry.rows += 1 / n;
  entry.jsonBytes += JSON.stringify(op.row).length / n;
  perCreate.set(op.collection, entry);
}
console.log(
  JSON.stringify(
    {
      storage: values.data ? 'file' : 'memory',
      firstCreateMs: Math.round(firstMs),
      fixtureParseMs: Math.round(parseMs),
      secondCreateMs: Math.round(secondMs * 10) / 10,
      firstCreateCommitMs: Math.round(firstCommitMs),
      firstCreateBaseRows: firstOps.filter((op) => op.type === 'put' && op.workspaceId.startsWith('~base:')).length,
      heapOfFirstCreateKiB: kib(afterFirst - beforeFirst),
      workspaces: n,
      heapPerWorkspaceKiB: kib((end - start) / n),
      rowsPerCreate: Object.fromEntries([...perCreate].map(([c, e]) => [c, { rows: Math.round(e.rows * 10) / 10, jsonBytes: Math.round(e.jsonBytes) }])),
      rssMiB: Math.round(process.memoryUsage().rss / 104857.6) / 10,
    },
    null,
    1,
  ),
);
await sandbox.stop();
