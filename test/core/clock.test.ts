import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';

describe('clock', () => {
  it('a manual clock stands still until advanced', async () => {
    const clock = new Clock('manual', 1_000);
    expect(clock.now()).toBe(1_000);
    await clock.advance(500);
    expect(clock.now()).toBe(1_500);
    expect(clock.iso()).toBe(new Date(1_500).toISOString());
  });

  it('advance fires due timers in order, each at its own time, including ones they schedule', async () => {
    const clock = new Clock('manual', 0);
    const fired: Array<[string, number]> = [];
    clock.schedule(300, () => fired.push(['b', clock.now()]));
    clock.schedule(100, () => {
      fired.push(['a', clock.now()]);
      clock.schedule(clock.now() + 50, () => fired.push(['a2', clock.now()]));
    });
    clock.schedule(5_000, () => fired.push(['late', clock.now()]));
    const state = await clock.advance(1_000);
    expect(fired).toEqual([
      ['a', 100],
      ['a2', 150],
      ['b', 300],
    ]);
    expect(state).toMatchObject({ nowMs: 1_000, pendingTimers: 1 });
  });

  it('a cancelled timer never fires; a throwing timer does not stop the others', async () => {
    const clock = new Clock('manual', 0);
    const fired: string[] = [];
    const cancel = clock.schedule(10, () => fired.push('cancelled'));
    clock.schedule(20, () => {
      throw new Error('boom');
    });
    clock.schedule(30, () => fired.push('ok'));
    cancel();
    await clock.advance(100);
    expect(fired).toEqual(['ok']);
  });

  it('a real clock can be moved forward (time travel) and set', async () => {
    let wall = 10_000;
    const clock = new Clock('real', undefined, () => wall);
    await clock.advance(5_000);
    expect(clock.now()).toBe(15_000);
    wall += 1_000;
    expect(clock.now()).toBe(16_000);
    await clock.set(100_000);
    expect(clock.now()).toBe(100_000);
    clock.dispose();
  });

  it('rejects negative advances', async () => {
    await expect(new Clock('manual', 0).advance(-1)).rejects.toThrow(RangeError);
  });
});

describe('a workspace advance on a real clock', () => {
  it('adds exactly the milliseconds asked to its offset, however the wall clock ticks meanwhile', async () => {
    let wall = Date.UTC(2026, 0, 15, 9, 0, 0);
    const clock = new Clock('real', undefined, () => wall++); // every reading a millisecond later
    await clock.advanceWorkspace('ws_a', 600_000);
    expect(clock.stateOf('ws_a').offsetMs).toBe(600_000);
    await clock.advanceWorkspace('ws_a', 1_000);
    expect(clock.stateOf('ws_a').offsetMs).toBe(601_000);
  });
});
