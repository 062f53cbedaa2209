import { Pool } from 'undici';
import { firstJsonLine, startChild, stopChild } from './lib/children.ts';
import { assertLocal } from './lib/ports.ts';
import { AUTH_HEADERS, SANDBOX_BIN, startSandbox } from './lib/sandbox-child.ts';
import { percentile, round } from './lib/stats.ts';

/**
 * Section 19, proxy (docs/parity.md): the latency `sandbox proxy`
 * adds to the client's requests on loopback. One client, one keep-alive
 * connection each way, requests one at a time, alternating in the same run:
 * client -> target directly, and client -> proxy -> target. The target is a
 * sandbox child; the proxy another child (`sandbox proxy --target`), which
 * replays each request in its own sandbox after answering, as it does in use.
 * Goal: under 2 ms added at the median.
 */
export const PROXY_GOAL_MS = 2;

export interface ProxyPathResult {
  path: string;
  direct: { p50Ms: number; p90Ms: number };
  proxied: { p50Ms: number; p90Ms: number };
  /** proxied p50 - direct p50 */
  addedP50Ms: number;
  ratioP50: number;
}

export interface ProxyBenchResult {
  requestsPerSide: number;
  paths: ProxyPathResult[];
}

const PATHS = ['/v1/products?limit=1', '/v1/products?limit=50'];

async function timed(pool: Pool, path: string): Promise<number> {
  const started = performance.now();
  const res = await pool.request({ method: 'GET', path, headers: AUTH_HEADERS });
  await res.body.arrayBuffer();
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`GET ${path}: status ${res.statusCode}`);
  return ms;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: round(percentile(sorted, 50), 3), p90Ms: round(percentile(sorted, 90), 3) };
};

export async function runProxyBench(options: { requests?: number; log: (line: string) => void }): Promise<ProxyBenchResult> {
  const requests = options.requests ?? 2000;
  const { log } = options;
  log('proxy: starting the target (a sandbox, --in-memory --no-rate-limits) ...');
  const target = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  log('proxy: starting sandbox proxy --target ...');
  const proxyChild = startChild(process.execPath, [SANDBOX_BIN, 'proxy', '--json', '--target', target.origin, '--port', '0', '--no-rate-limits']);
  const ready = await firstJsonLine<{ url: string }>(proxyChild, 120_000);
  const direct = new Pool(target.origin, { connections: 1 });
  const proxied = new Pool(assertLocal(ready.url), { connections: 1 });
  try {
    const paths: ProxyPathResult[] = [];
    for (const path of PATHS) {
      for (let i = 0; i < 200; i++) {
        await timed(direct, path); // warm-up: JIT, connections, the proxy's lazy modules
        await timed(proxied, path);
      }
      const d: number[] = [];
      const p: number[] = [];
      for (let i = 0; i < requests; i++) {
        // alternate which goes first, so neither always follows the other's replay
        if (i % 2 === 0) {
          d.push(await timed(direct, path));
          p.push(await timed(proxied, path));
        } else {
          p.push(await timed(proxied, path));
          d.push(await timed(direct, path));
        }
      }
      const ds = summary(d);
      const ps = summary(p);
      const result = { path, direct: ds, proxied: ps, addedP50Ms: round(ps.p50Ms - ds.p50Ms, 3), ratioP50: round(ps.p50Ms / ds.p50Ms, 2) };
      log(`proxy: ${path}: direct p50 ${ds.p50Ms} ms, proxied p50 ${ps.p50Ms} ms (+${result.addedP50Ms} ms)`);
      paths.push(result);
    }
    return { requestsPerSide: requests, paths };
  } finally {
    await direct.close();
    await proxied.close();
    await stopChild(proxyChild);
    await stopChild(target.child);
  }
}

export function proxyBlock(r: ProxyBenchResult): string {
  return [
    `19. proxy: the latency sandbox proxy adds on loopback, ${r.requestsPerSide} sequential requests a side, client -> target against client -> proxy -> target, alternating`,
    ...r.paths.map(
      (p) =>
        `  GET ${p.path}: direct p50 ${p.direct.p50Ms} ms (p90 ${p.direct.p90Ms}), proxied p50 ${p.proxied.p50Ms} ms (p90 ${p.proxied.p90Ms}): +${p.addedP50Ms} ms at the median, ratio ${p.ratioP50.toFixed(2)} (${p.addedP50Ms < PROXY_GOAL_MS ? 'meets' : 'ABOVE'} the ${PROXY_GOAL_MS} ms goal)`,
    ),
  ].join('\n');
}
