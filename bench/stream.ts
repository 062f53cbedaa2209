import { setMaxListeners } from 'node:events';
import { Agent, request } from 'undici';
import { Loader, summarize, type LoadResult, type LoadSample } from './lib/load.ts';
import { AUTH_HEADERS, startSandbox } from './lib/sandbox-child.ts';
import { round, sleep } from './lib/stats.ts';

/**
 * Section 15, stream clients (docs/control-plane.md, "The stream's clients"): /v1
 * throughput with none and with 100 clients of GET /__sandbox/stream with the default options
 * (every event, each request's headers and bodies: what the dashboard asks) reading as fast as
 * they can, same run, interleaved rounds. Target: ratio >= 0.5.
 */
export const STREAM_CLIENTS = 100;
const DROPPED = Buffer.from(': dropped ');

export interface StreamBenchResult {
  connections: number;
  rounds: number;
  clients: number;
  none: LoadResult;
  streaming: LoadResult;
  ratio: number;
  /** what one stream client received a second, on average over the rounds (MB) */
  clientMbPerSec: number;
  /** the `: dropped N events` comments the clients received: each says one fell behind and lost N events */
  droppedNotices: number;
}

interface Readers {
  bytes: number;
  dropped: number;
  stop: () => Promise<void>;
}

/** `count` default-option stream clients, each reading (and discarding) as fast as it can. */
async function openReaders(origin: string, count: number, dispatcher: Agent): Promise<Readers> {
  const readers: Readers = { bytes: 0, dropped: 0, stop: async () => undefined };
  const controller = new AbortController();
  setMaxListeners(count + 10, controller.signal); // one signal for every client: not a leak
  const reading: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    let res = await request(`${origin}/__sandbox/stream`, { dispatcher, signal: controller.signal });
    // the last round's clients may not have left yet on the server's side: they free their places in a moment
    for (let tries = 0; res.statusCode === 409 && tries < 50; tries++) {
      await res.body.dump();
      await sleep(50);
      res = await request(`${origin}/__sandbox/stream`, { dispatcher, signal: controller.signal });
    }
    if (res.statusCode !== 200) throw new Error(`stream client ${i + 1}: status ${res.statusCode}: ${(await res.body.text()).slice(0, 200)}`);
    reading.push(
      (async () => {
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          readers.bytes += chunk.length;
          if (chunk.indexOf(DROPPED) !== -1) readers.dropped++;
        }
      })().catch(() => undefined),
    );
  }
  readers.stop = async () => {
    controller.abort();
    await Promise.all(reading);
  };
  return readers;
}

export async function runStreamBench(options: {
  connections: number;
  durationMs: number;
  warmupMs: number;
  rounds: number;
  log: (line: string) => void;
}): Promise<StreamBenchResult> {
  const { log } = options;
  log('stream: starting the sandbox (--in-memory --no-rate-limits) ...');
  const sandbox = await startSandbox(['--in-memory', '--no-rate-limits', '--port', '0']);
  const dispatcher = new Agent({ connections: null });
  try {
    const first = await request(`${sandbox.origin}/v1/products`, { headers: AUTH_HEADERS });
    const bytes = (await first.body.arrayBuffer()).byteLength;
    const loader = new Loader(
      { name: 'sandbox', origin: sandbox.origin, path: '/v1/products', headers: AUTH_HEADERS, expectBytes: bytes, pid: sandbox.child.process.pid },
      options.connections,
    );
    const none: LoadSample[] = [];
    const streaming: LoadSample[] = [];
    let received = 0;
    let clientSeconds = 0;
    let droppedNotices = 0;
    // a round of at least 2 s: the clients' cost in its steady state, not their connecting
    const perRound = Math.max(2000, Math.round(options.durationMs / options.rounds));
    try {
      await loader.run(options.warmupMs);
      for (let r = 0; r < options.rounds; r++) {
        log(`stream: round ${r + 1}/${options.rounds}, ${perRound} ms each ...`);
        for (const mode of r % 2 === 0 ? (['none', 'streaming'] as const) : (['streaming', 'none'] as const)) {
          if (mode === 'none') {
            none.push(await loader.run(perRound));
            continue;
          }
          const readers = await openReaders(sandbox.origin, STREAM_CLIENTS, dispatcher);
          await sleep(200); // every client's hello read
          const before = readers.bytes;
          const sample = await loader.run(perRound);
          received += readers.bytes - before;
          clientSeconds += sample.seconds * STREAM_CLIENTS;
          streaming.push(sample);
          await readers.stop();
          droppedNotices += readers.dropped;
        }
      }
    } finally {
      await loader.close();
    }
    const result: StreamBenchResult = {
      connections: options.connections,
      rounds: options.rounds,
      clients: STREAM_CLIENTS,
      none: summarize('no stream client', none),
      streaming: summarize(`${STREAM_CLIENTS} stream clients`, streaming),
      ratio: 0,
      clientMbPerSec: clientSeconds > 0 ? round(received / clientSeconds / 1e6, 2) : 0,
      droppedNotices,
    };
    result.ratio = round(result.streaming.reqPerSec / result.none.reqPerSec, 2);
    return result;
  } finally {
    await dispatcher.close().catch(() => undefined);
    sandbox.child.process.kill();
  }
}

export function streamBlock(r: StreamBenchResult): string {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  return [
    `15. stream clients: GET /v1/products, ${r.connections} connections, ${r.rounds} rounds, with none and with ${r.clients} clients of GET /__sandbox/stream (default options) reading`,
    `  none ${fmt(r.none.reqPerSec)} req/s (${r.none.serverCpuUsPerReq} us server CPU/req), ${r.clients} clients ${fmt(r.streaming.reqPerSec)} req/s (${r.streaming.serverCpuUsPerReq} us/req; each client received ${r.clientMbPerSec} MB/s, ${r.droppedNotices} dropped-events notices): ratio ${r.ratio.toFixed(2)} (${r.ratio >= 0.5 ? 'meets' : 'BELOW'} 0.5)`,
  ].join('\n');
}
