import { onCi } from './chromium.ts';

/**
 * How deep the seeded tests go (`npm test` answers in minutes, and CI still runs
 * everything). CI (CI set) runs the full depth: every round of the chaos files, every fuzz
 * run. A local `npm test` runs the first rounds of the same seeded sequences: the same cases,
 * seeds and assertions, fewer repeats. Hypothesis's "ci" and "dev" settings profiles and
 * fast-check's numRuns work the same way. TEST_DEPTH=full gives CI's depth anywhere,
 * TEST_DEPTH=local the local one; a file's own variable (CHAOS_ROUNDS, FUZZ_RUNS) still wins.
 * The end of a local run says so in one line (test/setup/global.ts).
 */
export function fullDepth(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TEST_DEPTH ? env.TEST_DEPTH === 'full' : onCi(env);
}

/** The count to run: the variable `name` when set, else `full` in CI and `local` elsewhere. */
export function depth(name: string, full: number, local: number, env: NodeJS.ProcessEnv = process.env): number {
  const set = env[name];
  if (set !== undefined && set !== '') {
    const n = Number(set);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${set}: expected a whole number`);
    return n;
  }
  return fullDepth(env) ? full : local;
}

/**
 * fast-check's `numRuns` for a property test: `full` in CI, a quarter of it (at least 10) in a
 * local run, PROPERTY_RUNS when set. The same properties and generators, fewer cases: fast-check's
 * seed is random per run, so local runs still wander, and CI walks the full count every time.
 */
export function propertyRuns(full: number, env: NodeJS.ProcessEnv = process.env): number {
  return depth('PROPERTY_RUNS', full, Math.max(10, Math.ceil(full / 4)), env);
}

/** The one line a local run ends with, or null at full depth. */
export function depthNotice(env: NodeJS.ProcessEnv = process.env): string | null {
  return fullDepth(env)
    ? null
    : 'DEPTH local: the chaos and fuzz files ran the first rounds of their seeded sequences and the property tests a quarter of their cases; CI runs them all (TEST_DEPTH=full npm test runs them here)';
}
