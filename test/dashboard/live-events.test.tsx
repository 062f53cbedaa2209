import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/dashboard/App.tsx';
import { toFeedItem } from '../../src/dashboard/control-source.ts';
import { attemptCount, dashboardReducer, initialDashboardState } from '../../src/dashboard/state.ts';
import type { FeedItem } from '../../src/dashboard/types.ts';
import { delivery, FakeSource, request, waitForFrame } from './fake-source.ts';

/** What the dispatcher sends on the stream after each attempt (src/core/stream-events.ts). */
function attemptEvent(overrides: Record<string, unknown> = {}): FeedItem {
  const data = {
    id: 'dlv_live',
    workspaceId: 'wksp_a',
    subscriptionId: 'whsub_1',
    eventId: 'evt_1',
    url: 'http://localhost:3000/hooks',
    eventType: 'booking.created',
    status: 'pending',
    trigger: 'initial',
    attempt: 1,
    maxAttempts: 6,
    responseStatus: 500,
    latencyMs: 12,
    error: null,
    nextAttemptAt: '2026-01-05T10:00:05.000Z',
    at: '2026-01-05T10:00:00.000Z',
    ...overrides,
  };
  return toFeedItem({ event: 'delivery', data: JSON.stringify(data) })!;
}

function mount(size = { columns: 100, rows: 30 }) {
  const source = new FakeSource();
  const quits: number[] = [];
  const app = render(<App source={source} batchMs={0} tickMs={0} size={size} color={false} onQuit={() => quits.push(1)} />);
  return { source, app, quits };
}

async function press(app: ReturnType<typeof render>, ...keys: string[]) {
  for (const key of keys) {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the dashboard under everything the stream sends', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('folds delivery attempt events into the webhooks panel (the first one must not crash the dashboard)', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(attemptEvent());
    let frame = await waitForFrame(app.lastFrame, (f) => f.includes('booking.created'));
    expect(frame).toMatch(/booking\.created\s+http:\/\/localhost\S*\s+1\/6\s+pending\s+500/);
    source.feed(attemptEvent({ attempt: 2, trigger: 'retry', status: 'succeeded', responseStatus: 200, nextAttemptAt: null }));
    frame = await waitForFrame(app.lastFrame, (f) => f.includes('succeeded'));
    expect(frame).toMatch(/booking\.created\s+http:\/\/localhost\S*\s+2\/6\s+succeeded\s+200/);
  });

  it('keeps the attempt count of a delivery first seen mid-way, and lets the polled record replace it', () => {
    let state = dashboardReducer(initialDashboardState(), { type: 'feed', items: [attemptEvent({ attempt: 3, trigger: 'retry' })] });
    expect(attemptCount(state.deliveries[0]!)).toBe(3);
    state = dashboardReducer(state, { type: 'deliveries', list: [delivery({ id: 'dlv_live', attempts: 3, maxAttempts: null })] });
    expect(state.deliveries[0]!.attempts).toHaveLength(3);
    expect(state.deliveries[0]!.maxAttempts).toBe(6);
  });

  it('skips and counts an unknown or malformed event instead of throwing', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(
      toFeedItem({ event: 'delivery', data: '{"attempts":null}' })!,
      toFeedItem({ event: 'surprise', data: '{}' })!,
      request({ path: '/v1/still-here' }),
    );
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/still-here'));
    expect(frame).toContain('2 skipped');
  });

  it('shows one line for a render error, keeps drawing the rest, and q still quits', async () => {
    const { source, app, quits } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: undefined as unknown as string }));
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('could not draw the panels'));
    expect(frame).toContain('● live');
    expect(frame).toContain('q quit');
    await press(app, 'q');
    expect(quits).toEqual([1]);
  });

  it('"/" starts an empty filter, so Enter clears the one applied', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: '/v1/bookings', status: 201 }), request({ path: '/v1/people', status: 404 }));
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/people'));
    await press(app, '/', '4', '0', '4', '\r');
    let frame = await waitForFrame(app.lastFrame, (f) => f.includes('filter: 404'));
    expect(frame).not.toContain('/v1/bookings');
    await press(app, '/');
    frame = await waitForFrame(app.lastFrame, (f) => f.includes('empty clears "404"'));
    expect(frame).toMatch(/^\/█/m);
    await press(app, '\r');
    frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/bookings'));
    expect(frame).not.toContain('filter: 404');
  });

  it('says the terminal is too small in full, even at 30 columns', async () => {
    const { source, app } = mount({ columns: 30, rows: 10 });
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('too small'));
    expect(frame.replace(/\s+/g, ' ')).toContain('Terminal too small (30x10): the dashboard needs 50x12. q quits.');
    for (const line of frame.split('\n')) expect([...line].length).toBeLessThanOrEqual(30);
  });

  it('shows the workspaces and their keys on K (the banner that --dashboard replaces), the default workspace first', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({
      workspaces: [
        {
          id: 'wksp_a',
          name: 'Aurora Tours',
          mode: 'live',
          rateLimits: 'enforce',
          created: false,
          templateId: null,
          default: false,
          keys: [
            {
              id: 'wkey_1',
              name: 'full',
              key: 'tcs_live_aurora_full_0000000000000000000001',
              keyPrefix: 'tcs_live_aurora_full',
              scopes: null,
              status: 'active',
            },
            { id: 'wkey_2', name: 'ci', key: null, keyPrefix: 'tcs_live_aurora_x1y2', scopes: ['products:read'], status: 'revoked' },
          ],
        },
        {
          id: 'wksp_b',
          name: 'Borealis Adventures (sandbox)',
          mode: 'sandbox',
          rateLimits: 'enforce',
          created: false,
          templateId: null,
          default: true,
          keys: [],
        },
      ],
    });
    await press(app, 'K');
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('API keys'));
    // the sandbox marks its default (GET /__sandbox/workspaces): the workspace of the README's key
    expect(frame.indexOf('Borealis Adventures (sandbox)  wksp_b  sandbox  default workspace')).toBeGreaterThan(0);
    expect(frame.indexOf('Borealis Adventures')).toBeLessThan(frame.indexOf('Aurora Tours'));
    expect(frame).toMatch(/full access\s+tcs_live_aurora_full_0000000000000000000001/);
    expect(frame).toMatch(/products:read\s+tcs_live_aurora_x1y2… \(revoked\)/);
    await press(app, 'K');
    await waitForFrame(app.lastFrame, (f) => !f.includes('API keys') && f.includes('Requests'));
  });
});
