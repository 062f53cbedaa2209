import { configDefaults, defineConfig } from 'vitest/config';
import { HEAVY_FILES } from './vitest.config.ts';

/**
 * The suite as Stryker runs it (stryker.config.mjs). The runner
 * forces one thread worker. Every file runs isolated (a fresh module graph):
 * a mutant in a module-level constant (`24 * 60 * 60 * 1000`, a list of
 * statuses) is only active if the module is evaluated again while it is
 * switched on; with the shared graph of vitest.config.ts such "static" mutants
 * all survived, whatever the tests. Left out: files whose code under test runs
 * in a packed tarball or a terminal (no mutant can be active there) or that
 * take minutes per run: the packed package, the tmux dashboard and the fuzz file; and the tests of
 * the test run itself (test/setup/: they start vitest, and no code of src/ runs in them).
 */
export const NOT_UNDER_STRYKER = ['test/package/**', 'test/dashboard/e2e-tmux.test.ts', 'test/setup/**', ...HEAVY_FILES];

/**
 * MUTATE_TESTS=test/core/rate-limit.test.ts,test/http/rate-limit.test.ts narrows
 * the suite for one module's run (docs/testing.md): every run, static mutants'
 * included, then reads only those files. Stryker's own --testFiles narrows
 * the runs that per-test coverage plans, but not the static mutants' runs.
 */
const chosen = process.env.MUTATE_TESTS?.split(',')
  .map((file) => file.trim())
  .filter(Boolean);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    setupFiles: ['test/setup/listener-errors.ts'],
    include: chosen?.length ? chosen : ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: [...configDefaults.exclude, ...NOT_UNDER_STRYKER],
    isolate: true,
  },
});
