import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../src/cli/seed.ts';

/**
 * `sandbox seed` shows a bar redrawn in place on a terminal
 * and plain lines otherwise (a pipe, a file, CI logs). The non-terminal case
 * end to end is in test/control/seed-chunks.test.ts.
 */
function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  const out = { isTTY, write: (text: string) => writes.push(text) > 0 } as unknown as NodeJS.WriteStream;
  return { out, writes };
}

describe('seed progress output', () => {
  it('on a terminal redraws one bar in place and ends the line at 100%', () => {
    const { out, writes } = fakeStream(true);
    const report = progressReporter(100, 1000, out);
    report({ products: 25, bookings: 250 }, 0.25);
    report({ products: 100, bookings: 1000 }, 1);
    expect(writes).toEqual([
      `\r[${'#'.repeat(8)}${'-'.repeat(22)}] 25% 25/100 products, 250/1000 bookings`,
      `\r[${'#'.repeat(30)}] 100% 100/100 products, 1000/1000 bookings`,
      '\n',
    ]);
    expect(writes.slice(0, -1).join('')).not.toContain('\n'); // redrawn, not scrolled
  });

  it('elsewhere writes one plain line per step, with no carriage return or bar', () => {
    const { out, writes } = fakeStream(false);
    const report = progressReporter(0, 2000, out);
    report({ products: 0, bookings: 1000 }, 0.5);
    report({ products: 0, bookings: 2000 }, 1);
    expect(writes).toEqual(['seeding: 50% (0/0 products, 1000/2000 bookings)\n', 'seeding: 100% (0/0 products, 2000/2000 bookings)\n']);
  });

  it('counts what was made, not what was asked: a run that falls short ends at 100% of its steps with the real count', () => {
    const { out, writes } = fakeStream(false);
    const report = progressReporter(0, 50_000, out);
    report({ products: 0, bookings: 1_100 }, 1);
    expect(writes).toEqual(['seeding: 100% (0/0 products, 1100/50000 bookings)\n']);
  });
});
