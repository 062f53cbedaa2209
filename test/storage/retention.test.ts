import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Once the state is built, the store keeps
 * only its rows, not the Collections object they came in (its partition
 * objects have one key per row: a second copy of every id). Checked with a
 * WeakRef after a forced GC, in a child process run with --expose-gc (RSS at
 * 100k bookings).
 */
describe('what the store keeps of the data it was given', () => {
  it('lets go of the Collections of replaceAll (in memory) and of the file it opened', () => {
    const script = fileURLToPath(new URL('./fixtures/retention-check.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ replaceAllKept: false, memoryRows: 50, fileRows: 50, fileParsed: true, fileKept: false });
  });
});
