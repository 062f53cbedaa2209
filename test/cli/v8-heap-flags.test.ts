import { afterEach, describe, expect, it, vi } from 'vitest';

const flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:v8')>();
  return { ...actual, setFlagsFromString: (flag: string) => void flags.push(flag) };
});

const { openCliSandbox } = await import('../../src/cli/start.ts');

/**
 * Issue 11 (RSS at 100k bookings): `sandbox start` and `exec` bound V8's
 * old-generation growth, and hold the young generation while starting
 * (src/cli/young-generation.ts). V8 itself is mocked: only the flags are checked.
 */
describe('V8 heap flags of the CLI sandbox', () => {
  afterEach(() => {
    flags.length = 0;
  });

  it('bounds the heap growth for good and holds the young generation only while starting', async () => {
    const sandbox = await openCliSandbox({ listen: false, storage: 'memory', clock: 'manual' }, {});
    try {
      expect(flags).toEqual(['--heap-growing-percent=30', '--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
    } finally {
      await sandbox.stop();
    }
  });
});
