/**
 * Background packing gives way to writes: after a commit, the next slice waits until
 * GIVE_WAY_MS after the last one ended, so an acknowledged write does not queue behind a slice
 * at every turn of the event loop. Fake timers: no test waits for real time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { noteForegroundWrite, packInBackground, type PacksInSlices } from '../../../src/storage/large-files/background-packing.ts';

afterEach(() => vi.useRealTimers());

describe('background packing', () => {
  it('runs slices back to back when nothing is written, and waits 8 ms after the last slice when something was', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const at: number[] = [];
    let done = false;
    const partition: PacksInSlices = {
      packSlice: () => {
        at.push(performance.now());
        return done ? 'done' : 'more';
      },
    };
    packInBackground(partition);
    const sliceAfter = () => {
      const before = at.length;
      for (let timers = 0; at.length === before && timers < 5; timers++) vi.advanceTimersToNextTimer();
      expect(at.length).toBe(before + 1);
      return at[at.length - 1]! - at[at.length - 2]!;
    };
    sliceAfter(); // the first
    expect(sliceAfter()).toBeLessThan(2); // idle: the next slice follows at once
    noteForegroundWrite();
    expect(sliceAfter()).toBeGreaterThanOrEqual(8); // a write since the last slice: it gives way
    expect(sliceAfter()).toBeLessThan(2); // no write since: back to back again
    done = true;
    sliceAfter();
    vi.advanceTimersByTime(100);
    expect(at.length).toBe(5); // done: nothing more is scheduled
  });
});
