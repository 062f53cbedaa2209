import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR } from '../../src/config.ts';
import { createSandbox } from '../../src/index.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario } from '../../src/scenarios/runner.ts';

const files = readdirSync(DEFAULT_SCENARIOS_DIR)
  .filter((n) => n.endsWith('.json'))
  .sort();

describe('every scenario in scenarios/ passes against a fresh sandbox', () => {
  it('ships the documented scenarios', () => {
    expect(files.map((f) => f.replace('.json', ''))).toEqual(
      expect.arrayContaining([
        'key-revocation',
        'sandbox-rate-limit',
        'idempotent-booking-retry',
        'booking-lifecycle-webhooks',
        'webhook-receiver-recovering',
        'webhook-chaos',
        'gallery-async-deletion',
        'verification',
      ]),
    );
  });

  it.each(files)('%s', async (file) => {
    const scenario = await loadScenarioFile(join(DEFAULT_SCENARIOS_DIR, file));
    const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: scenario.sandbox.clock, enforceRateLimits: scenario.sandbox.enforceRateLimits });
    try {
      const result = await runScenario(scenario, { url: sandbox.url });
      const failed = result.steps.find((s) => !s.passed);
      expect(failed, failed ? `${failed.name}: ${failed.message}` : '').toBeUndefined();
      expect(result.passed).toBe(true);
      expect(result.steps.length).toBeGreaterThan(0);
    } finally {
      await sandbox.stop();
    }
  });
});
