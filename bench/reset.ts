import { request } from 'undici';
import { median, percentile, round } from './lib/stats.ts';
import { AUTH_HEADERS } from './lib/sandbox-child.ts';
import { PRODUCTS_PATH } from './throughput.ts';

export interface ResetResult {
  runs: number;
  /** POST /__sandbox/reset, call to last byte, as a client sees it */
  medianMs: number;
  maxMs: number;
  /** the `ms` the sandbox reports in its answer (time inside ctx.reset()) */
  serverMedianMs: number;
  /** the API still answers with the fixture key after the resets */
  healthyAfter: boolean;
}

/** Section 4: POST /__sandbox/reset on the running in-memory sandbox, `runs` times in a row. */
export async function runReset(origin: string, runs: number, log: (line: string) => void): Promise<ResetResult> {
  log(`reset: ${runs} x POST /__sandbox/reset ...`);
  const client: number[] = [];
  const server: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const { statusCode, body } = await request(`${origin}/__sandbox/reset`, { method: 'POST' });
    const payload = (await body.json()) as { data?: { ms?: number } };
    client.push(performance.now() - t0);
    if (statusCode !== 200) throw new Error(`reset answered ${statusCode}: ${JSON.stringify(payload).slice(0, 200)}`);
    if (typeof payload.data?.ms === 'number') server.push(payload.data.ms);
  }
  const after = await request(`${origin}${PRODUCTS_PATH}?limit=1`, { headers: AUTH_HEADERS });
  await after.body.dump();
  const sorted = [...client].sort((a, b) => a - b);
  return {
    runs,
    medianMs: round(median(client), 1),
    maxMs: round(percentile(sorted, 100), 1),
    serverMedianMs: server.length ? round(median(server), 1) : Number.NaN,
    healthyAfter: after.statusCode === 200,
  };
}
