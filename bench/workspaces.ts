import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { stopChild } from './lib/children.ts';
import { startSandbox } from './lib/sandbox-child.ts';
import { median, percentile, round, sleep } from './lib/stats.ts';

const WORKSPACES = 100;

export interface WorkspacesResult {
  workspaces: number;
  /** POST /__sandbox/workspaces (default sandbox template), call to last byte; the first create also stores the template */
  firstMs: number;
  medianMs: number;
  p95Ms: number;
  /** RSS of the sandbox process after the first create and after `workspaces` more, and the cost per created workspace */
  rssBeforeMb: number;
  rssAfterMb: number;
  rssPerWorkspaceKb: number;
  /** the last workspace's full-access key answers GET /v1/products */
  keyWorks: boolean;
}

/**
 * Section 7: on a `sandbox start` child with a database file (fsync on, as by
 * default), create 100 workspaces from the default sandbox template one after
 * another, and read the child's RSS from /proc before and after (targets:
 * under 20 ms at the median; a workspace never written costs little memory).
 */
export async function runWorkspaces(tmpDir: string, log: (line: string) => void): Promise<WorkspacesResult> {
  const sandbox = await startSandbox(['--data', join(tmpDir, 'workspaces-db.json'), '--port', '0', '--no-rate-limits']);
  try {
    const pid = sandbox.child.process.pid!;
    log(`workspaces: creating ${WORKSPACES} workspaces ...`);
    const times: number[] = [];
    let key = '';
    let rssBefore = 0;
    for (let i = 0; i <= WORKSPACES; i++) {
      if (i === 1) {
        await sleep(1000); // the first create stored the template: measure from there
        rssBefore = rssMb(pid);
      }
      const t0 = performance.now();
      const res = await request(`${sandbox.origin}/__sandbox/workspaces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench ${i}` }),
      });
      const body = (await res.body.json()) as { data: { keys: { key: string }[] } };
      times.push(performance.now() - t0);
      if (res.statusCode !== 201) throw new Error(`POST /__sandbox/workspaces answered ${res.statusCode}`);
      key = body.data.keys[0]!.key;
    }
    await sleep(1000);
    const rssAfter = rssMb(pid);
    const check = await request(`${sandbox.origin}/v1/products?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await check.body.dump();
    const rest = times.slice(1).sort((a, b) => a - b); // WORKSPACES creates after the first
    return {
      workspaces: WORKSPACES,
      firstMs: round(times[0]!, 1),
      medianMs: round(median(rest), 2),
      p95Ms: round(percentile(rest, 95), 2),
      rssBeforeMb: round(rssBefore, 1),
      rssAfterMb: round(rssAfter, 1),
      rssPerWorkspaceKb: round(((rssAfter - rssBefore) * 1024) / WORKSPACES, 1),
      keyWorks: check.statusCode === 200,
    };
  } finally {
    await stopChild(sandbox.child);
  }
}

/** the child's resident set, from /proc (MiB, as `ps` reports it) */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

export function workspacesBlock(w: WorkspacesResult): string {
  return [
    `8. POST /__sandbox/workspaces (default sandbox template, file store), ${w.workspaces} creates: median ${w.medianMs} ms, p95 ${w.p95Ms} ms (first, which also stores the template: ${w.firstMs} ms); target < 20 ms`,
    `   RSS of the sandbox: ${w.rssBeforeMb} MB after the first, ${w.rssAfterMb} MB after ${w.workspaces} more: ${w.rssPerWorkspaceKb} KB per workspace never written (garbage collection makes this noisy); a created key works: ${w.keyWorks}`,
  ].join('\n');
}
