import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Vitest's cache of transformed modules on disk for the vitest runs the tests start themselves
 * (orphans.test.ts, silent-skips.test.ts): one folder in the run's scratch folder, removed at the run's end, so a run after the first
 * reads the modules instead of transforming them again (3.4 s of CPU per nested run,
 * 1.8 s cached). Keyed by each module's content and the config: it changes no outcome. The docs'
 * example projects keep theirs between runs instead (DOCS_VITEST_CACHE in test/docs/run.ts).
 */
export const NESTED_VITEST_CACHE_DIR = join(process.env.SANDBOX_TEST_RUN_DIR ?? tmpdir(), 'nested-vitest-cache');

/** The flags that give a nested `vitest run` that cache. */
export const NESTED_VITEST_CACHE = ['--experimental.fsModuleCache', '--experimental.fsModuleCachePath', NESTED_VITEST_CACHE_DIR];
