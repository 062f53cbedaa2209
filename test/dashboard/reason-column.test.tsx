import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/dashboard/App.tsx';
import { requestColumns } from '../../src/dashboard/components/RequestsTable.tsx';
import { FakeSource, request, waitForFrame } from './fake-source.ts';

/** The reason as a column of the request list, and a filter typed in one write. */
const BURST = 'RATE_LIMIT_BURST workspace wksp_b (sandbox: 100/min, burst 5) used its burst of 5; the next token comes at 2026-01-15T09:00:00.600Z';

function mount(columns: number, rows = 30) {
  const source = new FakeSource();
  const app = render(<App source={source} batchMs={0} tickMs={0} size={{ columns, rows }} color={false} onQuit={() => {}} />);
  return { source, app };
}

describe('the request list at 100 columns and wider', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  for (const columns of [100, 160]) {
    it(`shows each refusal's reason code in a REASON column at ${columns} columns, within the width`, async () => {
      const { source, app } = mount(columns);
      cleanup = app.unmount;
      await waitForFrame(app.lastFrame, () => source.sink !== null);
      source.feed(request({ path: '/v1/products', status: 429, reason: BURST }), request({ path: '/v1/bookings', status: 200 }));
      const frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/bookings') && f.includes('/v1/products'));
      expect(frame).toMatch(/ST\s+LATENCY\s+WORKSPA\S*\s+(KEY\s+)?REASON/);
      expect(frame).toMatch(/\/v1\/products\S*\s+429 .*RATE_LIMIT_BURST/);
      expect(frame).not.toContain('used its burst'); // the code, not the sentence (that is in the details)
      for (const line of frame.split('\n')) expect(line.length).toBeLessThanOrEqual(columns);
    });
  }

  it('has no REASON column below 100 columns', async () => {
    const { source, app } = mount(80, 24);
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: '/v1/products', status: 429, reason: BURST }));
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/products'));
    expect(frame).not.toContain('REASON');
  });

  it('columns fill the table exactly at every width', () => {
    for (let width = 50; width <= 200; width++) {
      for (const withReason of [false, true]) {
        const c = requestColumns(width, withReason);
        const shown = [c.time, c.method, c.path, c.status, c.latency, c.workspace, c.key, c.reason, c.id].filter((w) => w > 0);
        if (c.path > 8) expect(shown.reduce((a, b) => a + b, 0) + shown.length - 1, `${width} ${withReason}`).toBe(width);
        if (withReason) expect(c.reason).toBeGreaterThan(0);
      }
    }
  });
});

describe('a filter typed in one write', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  for (const [name, writes] of [
    ['"/" then "5xx" and Enter together', ['/', '5xx\r']],
    ['"/5xx" and Enter together', ['/5xx\r']],
  ] as const) {
    it(`applies its Enter: ${name}`, async () => {
      const { source, app } = mount(100);
      cleanup = app.unmount;
      await waitForFrame(app.lastFrame, () => source.sink !== null);
      source.feed(request({ path: '/v1/bookings', status: 201 }), request({ path: '/v1/people', status: 503 }));
      await waitForFrame(app.lastFrame, (f) => f.includes('/v1/people'));
      for (const chunk of writes) {
        app.stdin.write(chunk);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const frame = await waitForFrame(app.lastFrame, (f) => f.includes('filter: 5xx'));
      expect(frame).toContain('/v1/people');
      expect(frame).not.toContain('/v1/bookings');
    });
  }
});
