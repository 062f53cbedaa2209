import { request } from 'undici';
import { median, percentile, round } from './lib/stats.ts';
import { AUTH_HEADERS } from './lib/sandbox-child.ts';
import { PRODUCTS_PATH } from './throughput.ts';

export interface TimedControl {
  runs: number;
  /** call to last byte, as a client sees it */
  medianMs: number;
  maxMs: number;
  /** the `ms` the sandbox reports in its answer (time inside the sandbox) */
  serverMedianMs: number;
}

export interface ResetResult extends TimedControl {
  /** POST /__sandbox/snapshots/:name/restore of a snapshot of the default fixtures */
  restore: TimedControl;
  /** the API still answers with the fixture key after the resets and restores */
  healthyAfter: boolean;
}

/**
 * Section 4: on the running in-memory sandbox, `runs` times each:
 * POST /__sandbox/reset (back to the fixtures), and restoring a snapshot taken
 * of the default fixtures (what a test suite does between cases).
 */
export async function runReset(origin: string, runs: number, log: (line: string) => void): Promise<ResetResult> {
  log(`reset: ${runs} x POST /__sandbox/reset, ${runs} x snapshot restore ...`);
  const reset = await timeControl(origin, '/__sandbox/reset', runs);
  await call(origin, '/__sandbox/snapshots', { name: 'bench-fixtures' });
  const restore = await timeControl(origin, '/__sandbox/snapshots/bench-fixtures/restore', runs);
  const after = await request(`${origin}${PRODUCTS_PATH}?limit=1`, { headers: AUTH_HEADERS });
  await after.body.dump();
  return { ...reset, restore, healthyAfter: after.statusCode === 200 };
}

async function timeControl(origin: string, path: string, runs: number): Promise<TimedControl> {
  const client: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const payload = (await call(origin, path)) as { data?: { ms?: number } };
    client.push(performance.now() - t0);
    if (typeof payload.data?.ms === 'number') server.push(payload.data.ms);
  }
  const sorted = [...client].sort((a, b) => a - b);
  return {
    runs,
    medianMs: round(median(client), 1),
    maxMs: round(percentile(sorted, 100), 1),
    serverMedianMs: server.length ? round(median(server), 1) : Number.NaN,
  };
}

async function call(origin: string, path: string, body?: unknown): Promise<unknown> {
  const { statusCode, body: res } = await request(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' }, // a control-plane POST must say JSON, even without a body
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const payload = await res.json();
  if (statusCode >= 300) throw new Error(`${path} answered ${statusCode}: ${JSON.stringify(payload).slice(0, 200)}`);
  return payload;
}
