import { Pool } from 'undici';
import { processCpuMs } from './cpu.ts';
import { percentile, round } from './stats.ts';

/**
 * A closed-loop load generator: `connections` workers, each with one request
 * in flight on its own keep-alive connection, for a fixed time. Latency is
 * measured per request from the call to the last byte of the body. It runs in
 * the bench process, so on a 2-core machine it shares the CPU with the
 * server; that cost is the same for every target, so ratios stay fair.
 */
export interface LoadTarget {
  name: string;
  origin: string;
  path: string;
  headers?: Record<string, string>;
  /** content-length every answer must have (checked, so targets serve the same thing) */
  expectBytes: number;
  /** the server's pid, to measure its CPU time per request */
  pid?: number | undefined;
}

export interface LoadSample {
  requests: number;
  errors: number;
  seconds: number;
  bytes: number;
  /** server CPU time used during the run */
  serverCpuMs: number;
  latenciesMs: number[];
}

export interface LoadResult {
  name: string;
  requests: number;
  errors: number;
  seconds: number;
  reqPerSec: number;
  mbPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** server CPU (user + system) per request, in microseconds; NaN without /proc */
  serverCpuUsPerReq: number;
  /** share of one core the server used while loaded */
  serverCpuShare: number;
}

/** One target's connections, kept open across rounds so no round pays for connecting. */
export class Loader {
  private readonly pool: Pool;

  constructor(
    readonly target: LoadTarget,
    private readonly connections: number,
  ) {
    this.pool = new Pool(target.origin, { connections, pipelining: 1 });
  }

  /** Loads the target for durationMs; throws when every request failed. */
  async run(durationMs: number): Promise<LoadSample> {
    const sample: LoadSample = { requests: 0, errors: 0, seconds: 0, bytes: 0, serverCpuMs: 0, latenciesMs: [] };
    const errors: unknown[] = [];
    const cpuBefore = processCpuMs(this.target.pid);
    const started = performance.now();
    const deadline = started + durationMs;
    const worker = async () => {
      // an erroring target must not spin the loop
      while (performance.now() < deadline && sample.errors <= 100) {
        const t0 = performance.now();
        try {
          this.check(await this.one());
          sample.latenciesMs.push(performance.now() - t0);
          sample.requests++;
          sample.bytes += this.target.expectBytes;
        } catch (err) {
          sample.errors++;
          errors.push(err);
        }
      }
    };
    await Promise.all(Array.from({ length: this.connections }, worker));
    sample.seconds = (performance.now() - started) / 1000;
    sample.serverCpuMs = processCpuMs(this.target.pid) - cpuBefore;
    if (sample.requests === 0 && errors.length > 0) throw errors[0];
    return sample;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private async one(): Promise<{ statusCode: number; length: number }> {
    const { statusCode, headers, body } = await this.pool.request({ path: this.target.path, method: 'GET', headers: this.target.headers });
    // dump() reads the whole body and discards it (no copy); undici fails the
    // request if the connection ends before content-length bytes arrived
    await body.dump({ limit: 64 * 1024 * 1024 });
    return { statusCode, length: Number(headers['content-length']) };
  }

  private check({ statusCode, length }: { statusCode: number; length: number }): void {
    if (statusCode !== 200 || length !== this.target.expectBytes) {
      throw new Error(`${this.target.name}: status ${statusCode}, content-length ${length}, expected 200 and ${this.target.expectBytes}`);
    }
  }
}

/** Merges samples (rounds of the same target) into one result. */
export function summarize(name: string, samples: readonly LoadSample[]): LoadResult {
  const latencies = samples.flatMap((s) => s.latenciesMs).sort((a, b) => a - b);
  const sum = (pick: (s: LoadSample) => number) => samples.reduce((n, s) => n + pick(s), 0);
  const requests = sum((s) => s.requests);
  const seconds = sum((s) => s.seconds);
  const cpuMs = sum((s) => s.serverCpuMs);
  return {
    name,
    requests,
    errors: sum((s) => s.errors),
    seconds: round(seconds, 2),
    reqPerSec: Math.round(requests / seconds),
    mbPerSec: round(sum((s) => s.bytes) / seconds / 1e6, 1),
    p50Ms: round(percentile(latencies, 50), 2),
    p99Ms: round(percentile(latencies, 99), 2),
    maxMs: round(latencies[latencies.length - 1] ?? Number.NaN, 2),
    serverCpuUsPerReq: round((cpuMs * 1000) / requests, 1),
    serverCpuShare: round(cpuMs / 1000 / seconds, 2),
  };
}
