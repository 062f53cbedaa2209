import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// A receiver's tests under webhook chaos (docs/webhooks.md, "Testing your receiver"); each test starts its own sandbox.
export default defineConfig({
  test: {
    // this folder, so that `npx vitest run --config <path>/vitest.config.ts` works from anywhere
    root: fileURLToPath(new URL('.', import.meta.url)),
    // a test makes a few dozen requests and deliveries on a real socket: more than 5 s on a busy machine
    testTimeout: 60_000,
  },
});
