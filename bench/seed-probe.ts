/**
 * Does the sandbox keep answering while `sandbox seed` runs?
 * Starts a sandbox, polls GET /__sandbox/health every 20 ms while
 * `sandbox seed --products P --bookings B` runs against it, and prints the seed's
 * wall time and the health latencies (max, p99, median), after the same polling
 * with nothing running (the machine's own noise). A manual probe, not
 * part of `npm run bench` and not a test (no timed tests): figures in
 * docs/benchmarks.md, "Seed beside a CPU hog".
 *
 *   npx tsx bench/seed-probe.ts [--products 5000] [--bookings 50000] [--data <file>] [--port 4777]
 *                               [--idle-seconds 10] [--profile <dir>] [--server-log]
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { installChildCleanup, startChild, stopAll } from './lib/children.ts';

const { values } = parseArgs({
  options: {
    products: { type: 'string', default: '5000' },
    bookings: { type: 'string', default: '50000' },
    data: { type: 'string' },
    port: { type: 'string', default: '4777' },
    profile: { type: 'string' },
    'server-log': { type: 'boolean', default: false },
    'idle-seconds': { type: 'string', default: '10' },
  },
});
const url = `http://127.0.0.1:${values.port}`;
const bin = new URL('../bin/sandbox.js', import.meta.url).pathname;

async function health(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/__sandbox/health`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
  return performance.now() - started;
}

async function waitReady(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      await health();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the sandbox did not start within 60 s');
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function main(): Promise<void> {
  if (values.data) for (const path of [values.data, `${values.data}.journal`]) rmSync(path, { force: true }); // a fresh file each run
  const storage = values.data ? ['--data', values.data] : ['--in-memory'];
  const nodeArgs = values.profile ? ['--cpu-prof', '--cpu-prof-dir', values.profile] : [];
  const server = startChild(process.execPath, [...nodeArgs, bin, 'start', ...storage, '--port', values.port]);
  // its output is drained (a full pipe would block the server) and shown with --server-log
  for (const stream of [server.process.stdout!, server.process.stderr!])
    stream.on('data', (chunk: Buffer | string) => values['server-log'] && process.stderr.write(chunk));
  await waitReady();
  for (let i = 0; i < 20; i++) await health(); // warm
  // the same polling with nothing running first: what the machine's load alone costs
  const idleEnd = performance.now() + Number(values['idle-seconds']) * 1000;
  const idle = await poll(() => performance.now() < idleEnd);
  let seeding = true;
  const poller = poll(() => seeding);
  const started = performance.now();
  const seed = startChild(process.execPath, [bin, 'seed', '--products', values.products, '--bookings', values.bookings, '--url', url]);
  let out = '';
  seed.process.stdout!.setEncoding('utf8').on('data', (text: string) => (out += text));
  const code = await seed.exited;
  const wall = performance.now() - started;
  seeding = false;
  const latencies = await poller;
  console.log(out.trim());
  if (idle.length > 0) console.log(`idle: health ${summary(idle)}`);
  console.log(`seed exit ${code}, wall ${(wall / 1000).toFixed(1)} s; health ${summary(latencies)}`);
}

/** Health every 20 ms while `go()`; latencies in ms. */
async function poll(go: () => boolean): Promise<number[]> {
  const out: number[] = [];
  while (go()) {
    out.push(await health());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return out;
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  return `${latencies.length} probes, max ${fmt(sorted.at(-1)!)}, p99 ${fmt(percentile(sorted, 99))}, median ${fmt(percentile(sorted, 50))}`;
}

installChildCleanup(); // no server or seed left behind on Ctrl+C or a kill
main()
  .catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
