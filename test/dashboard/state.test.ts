import { describe, expect, it } from 'vitest';
import { dashboardReducer, HISTORY, initialDashboardState, type DashboardState } from '../../src/dashboard/state.ts';
import type { FeedItem } from '../../src/dashboard/types.ts';
import { delivery, request } from './fake-source.ts';

const feed = (state: DashboardState, ...items: FeedItem[]) => dashboardReducer(state, { type: 'feed', items });

describe('dashboard state', () => {
  it('keeps a bounded history, newest first, while counting every request and error', () => {
    let state = initialDashboardState();
    const items = Array.from({ length: HISTORY.requests + 50 }, (_, i) => request({ status: i % 10 === 0 ? 500 : 200 }));
    state = feed(state, ...items);
    expect(state.requests).toHaveLength(HISTORY.requests);
    expect(state.requests[0]!.requestId).toBe((items.at(-1) as Extract<FeedItem, { kind: 'request' }>).entry.requestId);
    expect(state.counts).toEqual({ skipped: 0, requests: HISTORY.requests + 50, errors: (HISTORY.requests + 50) / 10 });
  });

  it('does not list a request twice when it arrives in the initial load and on the stream', () => {
    const item = request() as Extract<FeedItem, { kind: 'request' }>;
    let state = dashboardReducer(initialDashboardState(), {
      type: 'initial',
      at: 0,
      state: { requests: [item.entry], deliveries: [], rateLimits: [], clock: null, uptimeMs: 0, workspaceNames: {} },
    });
    state = feed(state, item);
    expect(state.requests).toHaveLength(1);
  });

  it('holds the feed while paused and applies it on resume', () => {
    let state = dashboardReducer(initialDashboardState(), { type: 'toggle-pause' });
    state = feed(state, request({ path: '/v1/a' }), {
      kind: 'domain',
      event: { id: 'evt_1', type: 'booking.created', workspaceId: 'w', createdAt: '', data: {} },
    });
    state = dashboardReducer(state, { type: 'deliveries', list: [delivery({ id: 'dlv_p' })] });
    expect(state.requests).toHaveLength(0);
    expect(state.deliveries).toHaveLength(0);
    expect(state.counts.requests).toBe(1);
    state = dashboardReducer(state, { type: 'toggle-pause' });
    expect(state.requests.map((r) => r.path)).toEqual(['/v1/a']);
    expect(state.events.map((e) => e.type)).toEqual(['booking.created']);
    expect(state.deliveries.map((d) => d.id)).toEqual(['dlv_p']);
  });

  it('clear hides the current deliveries until they get another attempt', () => {
    let state = dashboardReducer(initialDashboardState(), {
      type: 'deliveries',
      list: [delivery({ id: 'dlv_1', attempts: 1 }), delivery({ id: 'dlv_2', attempts: 1 })],
    });
    state = dashboardReducer(state, { type: 'clear' });
    state = dashboardReducer(state, { type: 'deliveries', list: [delivery({ id: 'dlv_1', attempts: 1 }), delivery({ id: 'dlv_2', attempts: 2 })] });
    expect(state.deliveries.map((d) => d.id)).toEqual(['dlv_2']);
  });

  it('applies rate-limit changes to the matching bucket and adds new ones', () => {
    let state = dashboardReducer(initialDashboardState(), {
      type: 'rate-limits',
      list: [{ bucket: 'workspace:w', kind: 'workspace', id: 'w', limit: 100, remaining: 100, reset: null, burst: 5, burstTokens: 5, perSecond: null }],
    });
    state = feed(
      state,
      { kind: 'rate-limit', change: { bucket: 'workspace:w', limit: 100, remaining: 42, reset: 99 } },
      { kind: 'rate-limit', change: { bucket: 'key:orgkey_1', limit: 60, remaining: 59, reset: 99 } },
    );
    expect(state.rateLimits.map((b) => [b.bucket, b.kind, b.remaining, b.burstTokens])).toEqual([
      ['workspace:w', 'workspace', 42, 5],
      ['key:orgkey_1', 'key', 59, 0],
    ]);
  });

  it('a sandbox reset empties the deliveries and shows up among the events', () => {
    let state = dashboardReducer(initialDashboardState(), { type: 'deliveries', list: [delivery()] });
    state = feed(state, { kind: 'reset', at: '2026-01-05T10:00:00.000Z' });
    expect(state.deliveries).toEqual([]);
    expect(state.events[0]!.type).toBe('sandbox.reset');
  });
});
