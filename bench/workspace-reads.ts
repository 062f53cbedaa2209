import { join } from 'node:path';
import { request } from 'undici';
import { stopChild } from './lib/children.ts';
import { startSandbox } from './lib/sandbox-child.ts';
import { median, round, sleep } from './lib/stats.ts';
import { rssMb } from './workspaces.ts';

const WORKSPACES = 1000;
const CONCURRENCY = 8;

export interface WorkspaceReadsResult {
  workspaces: number;
  /** `file`: a --data file, as `sandbox start` by default (a reset writes the whole database); `memory`: --in-memory */
  storage: 'file' | 'memory';
  /** RSS of the sandbox 1 s after start, after the creates, after every workspace read, after the reset */
  rssStartMb: number;
  rssCreatedMb: number;
  rssReadMb: number;
  rssAfterResetMb: number;
  /** POST /__sandbox/reset right after the reads: call to last byte, and the `ms` inside the sandbox */
  resetMs: number;
  resetServerMs: number;
  /** the same reset before any workspace was created (median of 3, inside the sandbox): what the file store costs anyway */
  resetBeforeServerMs: number;
  /** every workspace's key read its own products and bookings (200 each) */
  readsOk: boolean;
}

/**
 * Section 9: on a `sandbox start` child with a database
 * file, create 1,000 workspaces from the default template, let each read one
 * page of products and one of bookings through the HTTP API with its own key
 * (8 at a time), then time one global reset. Targets: RSS under 200 MiB
 * after the reads, and the reset under 100 ms. Before the bound on what a
 * workspace keeps of what it read, this measured 448 MB and 1.4 s. Run on a
 * database file and in memory: the file store's reset writes the whole
 * database, which costs as much with no workspace at all.
 */
export async function runWorkspaceReads(tmpDir: string, storage: 'file' | 'memory', log: (line: string) => void): Promise<WorkspaceReadsResult> {
  const where = storage === 'file' ? ['--data', join(tmpDir, 'workspace-reads-db.json')] : ['--in-memory'];
  const sandbox = await startSandbox([...where, '--port', '0', '--no-rate-limits']);
  try {
    const pid = sandbox.child.process.pid!;
    await sleep(1000);
    const rssStart = rssMb(pid);
    const baseline: number[] = [];
    for (let i = 0; i < 3; i++) baseline.push((await reset(sandbox.origin)).serverMs);
    log(`workspace reads (${storage}): creating ${WORKSPACES} workspaces ...`);
    const keys: string[] = [];
    for (let i = 0; i < WORKSPACES; i++) {
      const res = await request(`${sandbox.origin}/__sandbox/workspaces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `reader ${i}` }),
      });
      const body = (await res.body.json()) as { data: { keys: { key: string }[] }; error?: string };
      if (res.statusCode !== 201) throw new Error(`POST /__sandbox/workspaces answered ${res.statusCode}: ${body.error}`);
      keys.push(body.data.keys[0]!.key);
    }
    await sleep(1000);
    const rssCreated = rssMb(pid);
    log(`workspace reads: one page of products and of bookings per workspace, ${CONCURRENCY} at a time ...`);
    let readsOk = true;
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const key = keys[next++]!;
        for (const path of ['/v1/products', '/v1/bookings']) {
          const res = await request(`${sandbox.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
          await res.body.dump();
          if (res.statusCode !== 200) readsOk = false;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await sleep(1000);
    const rssRead = rssMb(pid);
    log('workspace reads: POST /__sandbox/reset ...');
    const { clientMs: resetMs, serverMs: resetServerMs } = await reset(sandbox.origin);
    await sleep(1000);
    return {
      workspaces: WORKSPACES,
      storage,
      rssStartMb: round(rssStart, 1),
      rssCreatedMb: round(rssCreated, 1),
      rssReadMb: round(rssRead, 1),
      rssAfterResetMb: round(rssMb(pid), 1),
      resetMs: round(resetMs, 1),
      resetServerMs: round(resetServerMs, 1),
      resetBeforeServerMs: round(median(baseline), 1),
      readsOk,
    };
  } finally {
    await stopChild(sandbox.child);
  }
}

async function reset(origin: string): Promise<{ clientMs: number; serverMs: number }> {
  const t0 = performance.now();
  const res = await request(`${origin}/__sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const payload = (await res.body.json()) as { data?: { ms?: number }; error?: string };
  const clientMs = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`POST /__sandbox/reset answered ${res.statusCode}: ${payload.error}`);
  return { clientMs, serverMs: payload.data?.ms ?? Number.NaN };
}

export function workspaceReadsBlock(results: readonly WorkspaceReadsResult[]): string {
  return results.map((r, i) => workspaceReadsLines(r, i === 0)).join('\n');
}

function workspaceReadsLines(r: WorkspaceReadsResult, first: boolean): string {
  const rss = r.rssReadMb < 200 ? 'meets the target (< 200 MiB)' : 'ABOVE the target of 200 MiB';
  const reset = r.resetMs < 100 ? 'meets the target (< 100 ms)' : 'ABOVE the target of 100 ms';
  return [
    `${first ? '9.' : '  '} ${r.workspaces} created workspaces, each reading one page of products and of bookings with its own key (${r.storage === 'file' ? 'file store' : 'in memory'})`,
    `   RSS: ${r.rssStartMb} MiB at start, ${r.rssCreatedMb} MiB after the creates, ${r.rssReadMb} MiB after the reads: ${rss}${r.readsOk ? '' : '  (WARNING: a read failed)'}`,
    `   then POST /__sandbox/reset: ${r.resetMs} ms at the client (${r.resetServerMs} ms inside the sandbox): ${reset}; RSS ${r.rssAfterResetMb} MiB after it`,
    `   (the same reset before any workspace was created: ${r.resetBeforeServerMs} ms inside the sandbox, median of 3)`,
  ].join('\n');
}
