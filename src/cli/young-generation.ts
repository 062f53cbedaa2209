import { setFlagsFromString } from 'node:v8';

/**
 * Starting allocates a few MB that all survive (the database, parsed once).
 * V8 answers a high survival rate by doubling its young generation up to 16 MB,
 * which then stays committed until its memory reducer runs, 10 s or more
 * later: about 8 MiB of idle RSS (docs/benchmarks.md). Holding the growth
 * factor at 1 while the sandbox starts keeps the young generation at its
 * initial size; V8's default factor (2) comes back once the server listens,
 * so load can still grow it. V8 reads this flag each time it grows the space.
 */
export function holdYoungGeneration(): () => void {
  setFlagsFromString('--semi-space-growth-factor=1');
  return () => setFlagsFromString('--semi-space-growth-factor=2');
}
