/**
 * The compaction bound under --watch (docs/storage.md, "What a
 * watched edit does"), on fake timers: 200 ms after the last write, and under
 * steady writes at most 2 s after the first one not yet folded.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMPACT_AFTER_IDLE_MS, COMPACT_WITHIN_MS, compactionScheduler } from '../src/watch-database.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('compaction under --watch', () => {
  it('runs once the writes pause', () => {
    vi.useFakeTimers();
    const compact = vi.fn(() => Promise.resolve());
    const scheduler = compactionScheduler(compact);
    scheduler.wrote();
    vi.advanceTimersByTime(COMPACT_AFTER_IDLE_MS - 1);
    expect(compact).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(compact).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(COMPACT_WITHIN_MS * 2);
    expect(compact).toHaveBeenCalledTimes(1); // nothing written since: nothing to fold
    scheduler.stop();
  });

  it('runs every 2 s under writes that never pause for 200 ms', () => {
    vi.useFakeTimers();
    const compact = vi.fn(() => Promise.resolve());
    const scheduler = compactionScheduler(compact);
    const calls: number[] = [];
    for (let t = 0; t < 3 * COMPACT_WITHIN_MS; t += 50) {
      scheduler.wrote();
      vi.advanceTimersByTime(50);
      if (compact.mock.calls.length > calls.length) calls.push(t + 50);
    }
    expect(calls).toEqual([COMPACT_WITHIN_MS, 2 * COMPACT_WITHIN_MS, 3 * COMPACT_WITHIN_MS]);
    scheduler.stop();
    vi.advanceTimersByTime(COMPACT_WITHIN_MS);
    expect(compact).toHaveBeenCalledTimes(3); // stopped: no more
  });
});
