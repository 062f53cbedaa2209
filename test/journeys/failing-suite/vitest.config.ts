import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The failing suite of the failure-bundle journey (test/journeys/bundle.test.ts), run under
// `sandbox exec`: its files end in .check.ts, so the project's own suite never runs them.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.check.ts'],
  },
});
