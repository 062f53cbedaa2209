import { configDefaults, defineConfig } from 'vitest/config';
import { HEAVY_FILES, MOCKING_FILES } from './vitest.config.ts';

/**
 * The suite as Stryker runs it (stryker.config.mjs, issue 28). The runner
 * forces one thread worker. Left out: files whose code under test runs in a
 * packed tarball or a terminal (no mutant can be active there) or that take
 * minutes per run: the packed package, the tmux dashboard and the fuzz file.
 * Everything else runs as in `npm test`, with the same two projects.
 */
export const NOT_UNDER_STRYKER = ['test/package/**', 'test/dashboard/e2e-tmux.test.ts', ...HEAVY_FILES];

const TEST_FILES = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: [...configDefaults.exclude, ...MOCKING_FILES, ...NOT_UNDER_STRYKER], isolate: false } },
      { extends: true, test: { name: 'isolated', include: MOCKING_FILES } },
    ],
  },
});
