import { describe, expect, it } from 'vitest';
import { depth, depthNotice, fullDepth, propertyRuns } from './depth.ts';

describe('the depth of the seeded tests (test/setup/depth.ts)', () => {
  it("is CI's full depth under CI, the local one elsewhere, and TEST_DEPTH chooses either", () => {
    expect(depth('CHAOS_ROUNDS', 10, 3, { CI: 'true' })).toBe(10);
    expect(depth('CHAOS_ROUNDS', 10, 3, { CI: '1' })).toBe(10);
    expect(depth('CHAOS_ROUNDS', 10, 3, {})).toBe(3);
    expect(depth('CHAOS_ROUNDS', 10, 3, { CI: 'false' })).toBe(3);
    expect(depth('CHAOS_ROUNDS', 10, 3, { TEST_DEPTH: 'full' })).toBe(10);
    expect(depth('CHAOS_ROUNDS', 10, 3, { CI: 'true', TEST_DEPTH: 'local' })).toBe(3);
    expect(fullDepth({ CI: 'true' })).toBe(true);
  });

  it("lets the file's own variable win, and refuses one that is not a count", () => {
    expect(depth('CHAOS_ROUNDS', 10, 3, { CHAOS_ROUNDS: '7' })).toBe(7);
    expect(depth('CHAOS_ROUNDS', 10, 3, { CI: 'true', CHAOS_ROUNDS: '1' })).toBe(1);
    expect(depth('CHAOS_ROUNDS', 10, 3, { CHAOS_ROUNDS: '' })).toBe(3);
    expect(() => depth('CHAOS_ROUNDS', 10, 3, { CHAOS_ROUNDS: 'many' })).toThrow('CHAOS_ROUNDS=many: expected a whole number');
  });

  it("runs a property's full count in CI and a quarter of it (at least 10) elsewhere; PROPERTY_RUNS sets it", () => {
    expect(propertyRuns(300, { CI: 'true' })).toBe(300);
    expect(propertyRuns(300, {})).toBe(75);
    expect(propertyRuns(150, {})).toBe(38);
    expect(propertyRuns(20, {})).toBe(10);
    expect(propertyRuns(300, { PROPERTY_RUNS: '1000' })).toBe(1000);
  });

  it('says in one line, on a local run only, that CI runs the rest', () => {
    expect(depthNotice({})).toMatch(/^DEPTH local: .*CI runs them all \(TEST_DEPTH=full npm test/);
    expect(depthNotice({})).not.toContain('\n');
    expect(depthNotice({ CI: 'true' })).toBeNull();
  });
});
