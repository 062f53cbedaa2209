import { configDefaults, defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/setup/sequencer.ts';
import { globs, SPAWNING_FILES } from './test/tiers.ts';

/**
 * Files that replace a module with `vi.mock` (node:v8, node:fs, ...) need a
 * fresh module graph of their own; they run isolated. Every other file shares
 * its worker's module graph with the files before it (`isolate: false`), which
 * saves loading src/ again per file: about 40 s of the suite's import time on
 * the 2-core machine (docs/testing.md, "Running the tests"). A file that starts mocking a
 * module belongs in this list; test/vitest-config.test.ts checks that it is.
 */
export const MOCKING_FILES = [
  'test/cli/v8-heap-flags.test.ts',
  'test/fixtures/prepared-start.test.ts',
  'test/storage/crash-steps.test.ts',
  'test/storage/failure.test.ts',
];

/**
 * Files that allocate heavily for a long time run isolated too. In a shared
 * worker the fuzz file ran 73 s instead of 17 s in CI: it inherits the heap
 * that the files before it left behind (sandboxes a file never stopped, the
 * modules of every file), and its many small allocations pay for that.
 */
export const HEAVY_FILES = ['test/fuzz/api.test.ts'];

const ISOLATED_FILES = [...MOCKING_FILES, ...HEAVY_FILES];

const TEST_FILES = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

/**
 * `npm run test:fast` (SANDBOX_TEST_TIER=fast): the suite without the files that start processes or
 * a browser (test/tiers.ts) and without the heavy fuzz file, each file guarded against a spawn
 * (test/setup/no-spawn.ts). `npm test` runs everything.
 */
const FAST = process.env.SANDBOX_TEST_TIER === 'fast';
const NOT_IN_TIER = FAST ? [...globs(SPAWNING_FILES), ...HEAVY_FILES] : [];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; spawn-heavy CLI tests behave better with few workers
    maxWorkers: 2,
    reporters: ['default'],
    // a store change listener that throws fails the test (test/setup/listener-errors.ts); both projects extend this
    setupFiles: ['test/setup/listener-errors.ts', ...(FAST ? ['test/setup/no-spawn.ts'] : [])],
    // no orphans, no silent skips (test/setup/global.ts)
    globalSetup: ['test/setup/global.ts'],
    // transformed modules kept on disk between runs (node_modules/.experimental-vitest-cache, keyed by
    // each file's content; gone with a fresh install): a rerun transforms only what changed (docs/testing.md)
    experimental: { fsModuleCache: true },
    // the long files first, so that none runs alone at the end (test/setup/sequencer.ts)
    sequence: { sequencer: LongFilesFirst },
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: [...configDefaults.exclude, ...ISOLATED_FILES, ...NOT_IN_TIER], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED_FILES, exclude: NOT_IN_TIER } },
    ],
  },
});
