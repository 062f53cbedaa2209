import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceSummary } from '../../src/control/client.ts';
import { App } from '../../src/dashboard/App.tsx';
import type { DeliveryView } from '../../src/dashboard/types.ts';
import { delivery, FakeSource, request, waitForFrame } from './fake-source.ts';

/** The dashboard read under live traffic. */
const WAIT = 3000; // turns of 5 ms: a deadline of 15 s at least

function mount(size = { columns: 100, rows: 30 }) {
  const source = new FakeSource();
  const app = render(<App source={source} batchMs={0} tickMs={0} size={size} color={false} />);
  return { source, app };
}

async function press(app: ReturnType<typeof render>, ...keys: string[]) {
  for (const key of keys) {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const workspace = (id: string, name: string): WorkspaceSummary => ({
  id,
  name,
  mode: 'sandbox',
  rateLimits: 'enforce',
  created: true,
  templateId: 'wksp_a',
  default: false,
  keys: [],
});

/** A delivery whose attempts ran at the given times (the last one shows in the TIME column). */
function attemptedAt(id: string, createdAt: string, ...times: string[]): DeliveryView {
  const d = delivery({ id, attempts: times.length });
  return { ...d, createdAt, maxAttempts: 6, attempts: d.attempts.map((a, i) => ({ ...a, at: times[i]! })) };
}

describe('the dashboard under live traffic', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('names a workspace created after it connected, in the requests, events and rate limits', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial();
    const created = 'wksp_47a39132-22ab-4c5e-8f00-9b1d2e3f4a5b';
    source.workspaceList = [workspace('wksp_a', 'Aurora Tours'), workspace(created, 'Worker 3')];
    source.feed(
      request({ path: '/v1/bookings', workspaceId: created }),
      { kind: 'domain', event: { id: 'evt_w3', type: 'booking.created', workspaceId: created, createdAt: '2026-01-05T10:00:00.000Z', data: {} } },
      { kind: 'rate-limit', change: { bucket: `workspace:${created}`, limit: 3000, remaining: 2999, reset: 1 } },
    );
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('Worker 3') && !f.includes('wksp_47a3'), WAIT);
    expect(frame).toMatch(/\/v1\/bookings\s+200\s+3\.2ms\s+Worker 3/);
    expect(frame).toMatch(/booking\.created\s+Worker 3/);
    expect(frame).toMatch(/Worker 3\s+minute/);
    // asked once, whatever the number of items naming it; a known workspace is never asked about
    source.feed(request({ workspaceId: created }), request({ workspaceId: 'wksp_a' }));
    expect(source.workspaceReads).toBe(1);
  });

  it('lists webhook rows newest first by the time they show, a retried delivery on top', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    // dlv_old was created first but retried last; sorting by creation put it below dlv_young
    source.initial({
      deliveries: [
        attemptedAt('dlv_old', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:30.000Z'),
        attemptedAt('dlv_young', '2026-01-05T10:00:10.000Z', '2026-01-05T10:00:10.000Z'),
        attemptedAt('dlv_mid', '2026-01-05T10:00:20.000Z', '2026-01-05T10:00:20.000Z'),
      ],
    });
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('3 deliveries'), WAIT);
    const times = frame
      .split('\n')
      .filter((l) => /booking\.created/.test(l))
      .map((l) => l.slice(0, 8));
    expect(times).toEqual(['10:00:30', '10:00:20', '10:00:10']);
  });

  it('reads "n/max" in the TRY column for every row, loaded or live, and "n/?" only when the maximum is unknown', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({
      deliveries: [
        attemptedAt('dlv_loaded', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:00.000Z', '2026-01-05T10:00:05.000Z'),
        { ...delivery({ id: 'dlv_old_sandbox', maxAttempts: null }), createdAt: '2026-01-05T09:00:00.000Z' },
      ],
    });
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('2 deliveries'), WAIT);
    expect(frame).toMatch(/10:00:05 booking\.created\s+\S+\s+2\/6\s+pending/);
    expect(frame).toMatch(/10:00:01 booking\.created\s+\S+\s+1\/\?\s+pending/);
  });

  it('with a filter, says what it hides instead of "no webhook deliveries yet" or "no domain events yet"', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({
      deliveries: [
        delivery({ id: 'dlv_ok', status: 'succeeded', httpStatus: 200 }),
        { ...delivery({ id: 'dlv_ok2', status: 'succeeded', httpStatus: 200 }), createdAt: '2026-01-05T09:00:00.000Z' },
      ],
    });
    source.feed(request({ path: '/v1/people/x', status: 404 }), request({ path: '/v1/bookings', status: 201 }), {
      kind: 'domain',
      event: { id: 'evt_1', type: 'booking.created', workspaceId: 'wksp_a', createdAt: '2026-01-05T10:00:00.000Z', data: {} },
    });
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/bookings'), WAIT);
    await press(app, '/', '4', 'x', 'x', '\r');
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('filter: 4xx'), WAIT);
    expect(frame).toContain('/v1/people/x');
    expect(frame).not.toContain('no webhook deliveries yet');
    expect(frame).not.toContain('no domain events yet');
    expect(frame).toContain('2 webhook deliveries hidden by the filter "4xx"');
    expect(frame).toMatch(/1 domain event hidden by the filter/);
  });

  it('after c, the requests panel agrees with the header count instead of saying "no requests yet"', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({ deliveries: [delivery({ id: 'dlv_c' })] });
    for (let i = 0; i < 18; i++) source.feed(request({ path: `/v1/products/c${i}` }));
    source.feed({ kind: 'domain', event: { id: 'evt_c', type: 'booking.created', workspaceId: 'wksp_a', createdAt: '2026-01-05T10:00:00.000Z', data: {} } });
    await waitForFrame(app.lastFrame, (f) => f.includes('18 req'), WAIT);
    await press(app, 'c');
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('view cleared') && !f.includes('/v1/products/c'), WAIT);
    expect(frame).toContain('18 req');
    expect(frame).not.toContain('no requests yet');
    expect(frame).toContain('view cleared (c): 18 requests so far, new ones appear here');
    expect(frame).not.toMatch(/no (webhook deliveries|domain events) yet/);
    source.feed(request({ path: '/v1/after-clear' }));
    const after = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/after-clear'), WAIT);
    expect(after).toContain('19 req');
    expect(after).not.toContain('view cleared (c): ');
  });
});
