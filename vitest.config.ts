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

const TEST_FILES = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; spawn-heavy CLI tests behave better with few workers
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: [...configDefaults.exclude, ...MOCKING_FILES], isolate: false } },
      { extends: true, test: { name: 'isolated', include: MOCKING_FILES } },
    ],
  },
});
