import { runStorageBench, type PauseResult, type WriteCost } from './storage.ts';

export interface WriteCostResult {
  at1k: WriteCost;
  at100k: WriteCost;
  /** context from the same storage run */
  concurrentWritesPerSec: number;
  p99At100kMs: number;
  /** the same right after the seed, while its rows are packed in the background */
  p99At100kWhilePackingMs: number;
  /** event-loop delay while compactions write 100k records (docs/storage.md, "No pause at scale") */
  pause: PauseResult;
}

/**
 * Section 3: one acknowledged write (file store, fsync on) at 1k and 100k
 * records, from bench/storage.ts. The full storage run takes about 15 s here,
 * so it is used as is rather than reduced.
 */
export async function runWriteCost(log: (line: string) => void): Promise<WriteCostResult> {
  const result = await runStorageBench({ log: (line) => log(`storage: ${line}`) });
  return {
    at1k: result.writeCost.at1k,
    at100k: result.writeCost.at100k,
    concurrentWritesPerSec: result.throughput.writesPerSecond,
    p99At100kMs: result.latency.p99Ms,
    p99At100kWhilePackingMs: result.latency.whilePacking.p99Ms,
    pause: result.pause,
  };
}
