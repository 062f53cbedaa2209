import { defineConfig } from 'vitest/config';

/** The one-file run test/setup/orphans.test.ts interrupts: the suite's global setup, and the fixture. */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/setup/orphans.fixture.ts'],
    globalSetup: ['test/setup/global.ts'],
    reporters: ['default'],
  },
});
