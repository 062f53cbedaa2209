import { describe, expect, it } from 'vitest';
import { fitSections } from '../../src/dashboard/details.ts';
import { cell, gauge, gaugeTone, matchesFilter, prettyBody, statusTone, windowStart } from '../../src/dashboard/format.ts';
import { computeLayout } from '../../src/dashboard/layout.ts';

describe('dashboard formatting', () => {
  it('cuts and pads cells to an exact width', () => {
    expect(cell('abc', 5)).toBe('abc  ');
    expect(cell('abcdef', 4)).toBe('abc…');
    expect(cell('7', 3, 'right')).toBe('  7');
    expect(cell('a\nb', 3)).toBe('a b');
  });

  it('matches the filter on a status, a status class or a piece of the path', () => {
    expect(matchesFilter('404', '/v1/x', 404)).toBe(true);
    expect(matchesFilter('4xx', '/v1/x', 429)).toBe(true);
    expect(matchesFilter('4xx', '/v1/x', 500)).toBe(false);
    expect(matchesFilter('5', '/v1/x', 503)).toBe(true);
    expect(matchesFilter('Book', '/v1/bookings', 200)).toBe(true);
    expect(matchesFilter('people', '/v1/bookings', 200)).toBe(false);
  });

  it('colours statuses and gauges by how bad they are', () => {
    expect([200, 302, 404, 429, 503].map(statusTone)).toEqual(['green', 'cyan', 'yellow', 'magenta', 'red']);
    expect([0.9, 0.3, 0.1].map(gaugeTone)).toEqual(['green', 'yellow', 'red']);
    expect(gauge(0.5, 4)).toBe('██░░');
  });

  it('pretty-prints JSON bodies within a line budget and says what was cut', () => {
    const lines = prettyBody(JSON.stringify({ a: 1, b: [1, 2, 3] }), 40, 3);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('{');
    expect(lines[2]).toMatch(/more lines/);
    expect(prettyBody('{"cut', 40, 5, true).at(-1)).toMatch(/cut at 4 KB/);
  });

  it('keeps the selected row inside the window', () => {
    expect(windowStart(0, 100, 10)).toBe(0);
    expect(windowStart(15, 100, 10)).toBe(6);
    expect(windowStart(99, 100, 10)).toBe(90);
  });

  it('shares detail lines among sections, each getting something', () => {
    expect(fitSections([10, 1, 10, 40], 20)).toEqual([7, 1, 6, 6]);
    expect(fitSections([3, 3], 100)).toEqual([3, 3]);
  });

  it('lays panels out within the terminal at every size', () => {
    for (const [columns, rows] of [
      [80, 24],
      [100, 30],
      [140, 40],
      [220, 60],
      [50, 12],
    ] as const) {
      const l = computeLayout(columns, rows);
      const height = l.wide
        ? Math.max(l.requests.height, l.deliveries.height + l.rateLimits.height + l.events.height)
        : l.requests.height + l.deliveries.height + Math.max(l.rateLimits.height, l.events.height);
      expect(height, `${columns}x${rows}`).toBeLessThanOrEqual(rows - 3);
      const width = l.wide ? l.requests.width + 1 + l.deliveries.width : Math.max(l.requests.width, l.rateLimits.width + 1 + l.events.width);
      expect(width, `${columns}x${rows}`).toBeLessThanOrEqual(columns);
    }
  });
});
