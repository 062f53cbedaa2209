import { useEffect, useReducer } from 'react';
import { dashboardReducer, initialDashboardState, type DashboardAction, type DashboardState } from '../state.ts';
import type { DashboardSource, FeedItem } from '../types.ts';
import { WorkspaceLookup } from '../workspace-lookup.ts';

/** At most this many stream items wait for the next frame; older ones are dropped under a flood. */
const MAX_BUFFERED = 5000;

/**
 * Connects a source to the reducer. Stream items are batched and applied once
 * per frame (every `batchMs`, 100 ms = 10 fps), so a flood of requests costs one
 * render per frame, not one per request. `batchMs: 0` applies each at once (tests).
 * A workspace id the dashboard has no name for makes it read the workspaces again.
 */
export function useDashboard(source: DashboardSource, batchMs = 100, now: () => number = Date.now): [DashboardState, (action: DashboardAction) => void] {
  const [state, dispatch] = useReducer(dashboardReducer, undefined, initialDashboardState);
  useEffect(() => {
    let buffer: FeedItem[] = [];
    const flush = () => {
      if (buffer.length === 0) return;
      const items = buffer;
      buffer = [];
      dispatch({ type: 'feed', items });
    };
    const timer = batchMs > 0 ? setInterval(flush, batchMs) : null;
    const lookup = source.workspaces
      ? new WorkspaceLookup(
          () => source.workspaces!(),
          (list) => dispatch({ type: 'workspaces', list }),
        )
      : null;
    const stop = source.start({
      status: (status, detail) => dispatch({ type: 'status', status, detail }),
      initial: (initial) => {
        buffer = [];
        lookup?.known(Object.keys(initial.workspaceNames));
        dispatch({ type: 'initial', state: initial, at: now() });
      },
      feed: (item) => {
        lookup?.see(item);
        buffer.push(item);
        if (buffer.length > MAX_BUFFERED) buffer = buffer.slice(-MAX_BUFFERED);
        if (!timer) flush();
      },
      deliveries: (list) => dispatch({ type: 'deliveries', list }),
      rateLimits: (list) => dispatch({ type: 'rate-limits', list }),
      clock: (clock, uptimeMs) => dispatch({ type: 'clock', clock, uptimeMs, at: now() }),
    });
    return () => {
      stop();
      if (timer) clearInterval(timer);
    };
  }, [source, batchMs, now]);
  return [state, dispatch];
}
