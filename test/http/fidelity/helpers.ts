import { afterAll, beforeAll } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

/** A fixture webhook subscription id the fidelity tests PATCH and post to. */
export const SUBSCRIPTION = 'whsub_7a6aa769-2d4b-4f99-bff2-fd11c7483741';

/**
 * Two sandboxes for a fidelity test file: one as it runs by default (lenient,
 * with warnings) and one with `strict: true`, rate limits off in both. Started
 * before the file's tests, stopped after them; `use` receives them.
 */
export function lenientAndStrict(use: (lenient: TestSandbox, strict: TestSandbox) => void): void {
  let pair: [TestSandbox, TestSandbox];
  beforeAll(async () => {
    pair = [await testSandbox({ enforceRateLimits: false }), await testSandbox({ enforceRateLimits: false, strict: true })];
    use(...pair);
  });
  afterAll(async () => {
    for (const t of pair) await t.sandbox.stop();
  });
}
