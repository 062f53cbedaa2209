import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that replace a module with `vi.mock` (node:v8, node:fs, ...) need a
 * fresh module graph of their own; they run isolated. Every other file shares
 * its worker's module graph with the files before it (`isolate: false`), which
 * saves loading src/ again per file: about 40 s of the suite's import time on
 * the 2-core machine (docs/testing.md, "Speed"). A file that starts mocking a
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

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; spawn-heavy CLI tests behave better with few workers
    maxWorkers: 2,
    reporters: ['default'],
    // a store change listener that throws fails the test (test/setup/listener-errors.ts); both projects extend this
    setupFiles: ['test/setup/listener-errors.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: [...configDefaults.exclude, ...ISOLATED_FILES], isolate: false } },
      { extends: true, test: { name: 'isolated', include: ISOLATED_FILES } },
    ],
  },
});
