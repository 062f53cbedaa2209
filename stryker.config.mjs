// @ts-check
/**
 * Mutation testing of the modules that guard what users trust
 * (docs/testing.md, "Mutation testing"). Not part of .ci/run: a full run takes
 * long on the 2-core machine. `npm run mutate` runs all of them; one module:
 *
 *   npm run mutate -- --mutate src/core/auth.ts
 *   MUTATE_TESTS=test/http/auth.test.ts,test/core/scopes.test.ts npm run mutate -- --mutate src/core/auth.ts
 *
 * Per-test coverage runs each mutant against only the tests that reach it,
 * and incremental mode (its file, reports/stryker-incremental.json, is kept
 * out of git) reuses every result whose code and tests did not change.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  // related: false. The tests reach src/ through createSandbox and HTTP, and Vitest's related-file search
  // found none for a static mutant (a module-level constant): such mutants ran no test and all "survived".
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // two cores shared with the suite and an editor: one worker at a time
  concurrency: 1,
  // a mutant that loops forever ends at the runner's deadline, counted as killed (timeout)
  timeoutMS: 30_000,
  timeoutFactor: 2,
  checkers: [],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  mutate: [
    // auth, scopes, rate limits, idempotency, the self-request guard, the host and origin guards
    'src/core/auth.ts',
    'src/core/scopes.ts',
    'src/core/rate-limit.ts',
    'src/core/idempotency.ts',
    'src/core/self-guard.ts',
    'src/core/host-guard.ts',
    'src/http/control-scope.ts',
    // the lock, the file writer and the journal codec
    'src/storage/lock.ts',
    'src/storage/file-writer.ts',
    'src/storage/journal-text.ts',
    'src/storage/codec.ts',
    // the booking state machine, seat accounting and pricing arithmetic
    'src/resources/bookings/state.ts',
    'src/resources/departures/pricing.ts',
    'src/resources/departures/quote-arithmetic.ts',
    // webhook signing, the retry policy and pagination
    'src/webhooks/signing.ts',
    'src/webhooks/retry-policy.ts',
    'src/core/pagination.ts',
  ],
};
