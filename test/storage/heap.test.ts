import { afterEach, describe, expect, it, vi } from 'vitest';
import { BULK_ROWS, BulkCollector, gcFunction, SETTLE_MS } from '../../src/storage/heap.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('BulkCollector', () => {
  it('collects once, after bulk runs that wrote enough rows in all have been quiet', () => {
    vi.useFakeTimers();
    const collect = vi.fn();
    const runs = new BulkCollector(collect);
    runs.started();
    runs.ended(BULK_ROWS - 10); // not enough yet
    vi.advanceTimersByTime(SETTLE_MS * 2);
    expect(collect).not.toHaveBeenCalled();
    runs.started();
    runs.ended(10); // a small run after a large one: enough in all
    vi.advanceTimersByTime(SETTLE_MS - 1);
    runs.started(); // another run starts before the quiet time is over: it waits
    vi.advanceTimersByTime(SETTLE_MS * 2);
    expect(collect).not.toHaveBeenCalled();
    runs.ended(0);
    vi.advanceTimersByTime(SETTLE_MS);
    expect(collect).toHaveBeenCalledTimes(1);
    runs.ended(5); // counting starts again
    vi.advanceTimersByTime(SETTLE_MS * 2);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it("reaches V8's gc() on this Node", () => {
    expect(typeof gcFunction()).toBe('function');
  });
});
