import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // the machine has 2 cores; spawn-heavy CLI tests behave better with few workers
    maxWorkers: 2,
    reporters: ['default'],
  },
});
