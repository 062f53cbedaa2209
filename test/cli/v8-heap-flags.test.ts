import { afterEach, describe, expect, it, vi } from 'vitest';

const flags = vi.hoisted(() => [] as string[]);
/** the young generation's size as V8 reports it; null: V8's own figure */
const newSpaceBytes = vi.hoisted(() => ({ value: null as number | null }));
vi.mock('node:v8', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:v8')>();
  return {
    ...actual,
    setFlagsFromString: (flag: string) => void flags.push(flag),
    getHeapSpaceStatistics: () =>
      actual
        .getHeapSpaceStatistics()
        .map((s) => (s.space_name === 'new_space' && newSpaceBytes.value !== null ? { ...s, space_size: newSpaceBytes.value } : s)),
  };
});

const { openCliSandbox } = await import('../../src/cli/start.ts');
const { releaseYoungGenerationCap, youngGenerationFactor, YOUNG_GENERATION_CAP_BYTES } = await import('../../src/cli/young-generation.ts');
const MiB = 1024 * 1024;

/**
 * Memory at 100k bookings: `sandbox start` and `exec` bound V8's
 * old-generation growth, and hold the young generation while starting
 * (src/cli/young-generation.ts). V8 itself is mocked: only the flags are checked.
 */
describe('V8 heap flags of the CLI sandbox', () => {
  afterEach(() => {
    releaseYoungGenerationCap();
    flags.length = 0;
    newSpaceBytes.value = null;
  });

  it('bounds the heap growth for good and holds the young generation only while starting', async () => {
    newSpaceBytes.value = 1 * MiB; // its size at start
    const sandbox = await openCliSandbox({ listen: false, storage: 'memory', clock: 'manual' }, {});
    try {
      expect(flags).toEqual(['--heap-growing-percent=30', '--semi-space-growth-factor=1', '--semi-space-growth-factor=2']);
    } finally {
      await sandbox.stop();
    }
  });

  it('lets the young generation double only while it stays within the cap (8 MiB)', () => {
    expect(YOUNG_GENERATION_CAP_BYTES).toBe(8 * MiB);
    expect([1, 2, 4, 8, 16, 32].map((n) => youngGenerationFactor(n * MiB))).toEqual([2, 2, 2, 1, 1, 1]);
  });

  it('holds the young generation once it has reached the cap', async () => {
    newSpaceBytes.value = 8 * MiB; // grown under load before this check
    const sandbox = await openCliSandbox({ listen: false, storage: 'memory', clock: 'manual' }, {});
    try {
      expect(flags.filter((f) => f.startsWith('--semi-space-growth-factor'))).toEqual(['--semi-space-growth-factor=1']);
    } finally {
      await sandbox.stop();
    }
  });
});
