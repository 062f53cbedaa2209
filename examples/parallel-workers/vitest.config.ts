import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Parallel test workers on one sandbox (README, "Parallel test workers").
export default defineConfig({
  test: {
    // this folder, so that `npx vitest run --config <path>/vitest.config.ts` works from anywhere
    root: fileURLToPath(new URL('.', import.meta.url)),
    globalSetup: ['./sandbox.global-setup.ts'],
    setupFiles: ['./sandbox.worker-setup.ts'],
    pool: 'forks',
    maxWorkers: 4, // Vitest 3: poolOptions: { forks: { maxForks: 4 } }
  },
});
