import type { ClockState, WorkspaceSummary } from '../control/client.ts';
import type { DeliveryUpdate } from '../core/stream-events.ts';
import type { ConnectionStatus, DeliveryView, DomainEventRow, FeedItem, InitialState, RateBucket, RequestRow } from './types.ts';

/**
 * The dashboard's data as a pure reducer: every list is bounded, so a long
 * run under load keeps a constant memory and a constant cost per frame.
 */
export const HISTORY = { requests: 500, deliveries: 200, events: 200, held: 2000 } as const;

export interface DashboardState {
  connection: ConnectionStatus;
  connectionDetail: string | null;
  requests: RequestRow[];
  deliveries: DeliveryView[];
  events: DomainEventRow[];
  rateLimits: RateBucket[];
  clock: ClockState | null;
  /** server uptime when last read, and the local time (ms) it was read at */
  uptime: { ms: number; readAt: number } | null;
  /** `skipped`: stream events that could not be read (unknown or malformed), dropped and counted */
  counts: { requests: number; errors: number; skipped: number };
  workspaceNames: Record<string, string>;
  workspaces: WorkspaceSummary[];
  /** after "clear": deliveries hidden until they get another attempt (id -> attempts seen) */
  hiddenDeliveries: Record<string, number>;
  /** "c" was pressed: an empty panel then says so rather than "no requests yet" */
  cleared: boolean;
  paused: boolean;
  held: FeedItem[];
  heldDeliveries: DeliveryView[] | null;
}

export type DashboardAction =
  | { type: 'status'; status: ConnectionStatus; detail?: string | undefined }
  | { type: 'initial'; state: InitialState; at: number }
  | { type: 'feed'; items: FeedItem[] }
  | { type: 'deliveries'; list: DeliveryView[] }
  | { type: 'rate-limits'; list: RateBucket[] }
  | { type: 'clock'; clock: ClockState; uptimeMs: number | null; at: number }
  | { type: 'workspaces'; list: WorkspaceSummary[] }
  | { type: 'clear' }
  | { type: 'toggle-pause' };

export function initialDashboardState(): DashboardState {
  return {
    connection: 'connecting',
    connectionDetail: null,
    requests: [],
    deliveries: [],
    events: [],
    rateLimits: [],
    clock: null,
    uptime: null,
    counts: { requests: 0, errors: 0, skipped: 0 },
    workspaceNames: {},
    workspaces: [],
    hiddenDeliveries: {},
    cleared: false,
    paused: false,
    held: [],
    heldDeliveries: null,
  };
}

export function dashboardReducer(state: DashboardState, action: DashboardAction): DashboardState {
  switch (action.type) {
    case 'status':
      return { ...state, connection: action.status, connectionDetail: action.detail ?? null };
    case 'initial':
      return applyInitial(state, action.state, action.at);
    case 'feed':
      return applyFeed(state, action.items);
    case 'deliveries':
      if (state.paused) return { ...state, heldDeliveries: action.list };
      return { ...state, deliveries: mergeDeliveries(state.deliveries, action.list, state.hiddenDeliveries) };
    case 'rate-limits':
      return { ...state, rateLimits: action.list };
    case 'clock':
      return { ...state, clock: action.clock, uptime: action.uptimeMs === null ? state.uptime : { ms: action.uptimeMs, readAt: action.at } };
    // a workspace created while the dashboard runs (the hook looks it up when its id first shows)
    case 'workspaces':
      return { ...state, workspaces: action.list, workspaceNames: { ...state.workspaceNames, ...Object.fromEntries(action.list.map((w) => [w.id, w.name])) } };
    case 'clear':
      return {
        ...state,
        cleared: true,
        requests: [],
        events: [],
        deliveries: [],
        held: [],
        heldDeliveries: null,
        hiddenDeliveries: Object.fromEntries(state.deliveries.map((d) => [d.id, attemptCount(d)])),
      };
    case 'toggle-pause':
      return state.paused ? resume(state) : { ...state, paused: true };
  }
}

function applyInitial(state: DashboardState, initial: InitialState, at: number): DashboardState {
  const requests = initial.requests.slice(0, HISTORY.requests);
  return {
    ...state,
    requests,
    deliveries: mergeDeliveries([], initial.deliveries),
    rateLimits: initial.rateLimits,
    clock: initial.clock,
    uptime: initial.uptimeMs === null ? null : { ms: initial.uptimeMs, readAt: at },
    counts: { requests: initial.requests.length, errors: initial.requests.filter((r) => r.status >= 400).length, skipped: state.counts.skipped },
    workspaceNames: initial.workspaceNames,
    workspaces: initial.workspaces ?? state.workspaces,
  };
}

/** Counts move even while paused (the header tells the truth); the lists are held. */
function applyFeed(state: DashboardState, items: FeedItem[]): DashboardState {
  let next = state;
  const requests = items.filter((i) => i.kind === 'request');
  const skipped = items.filter((i) => i.kind === 'skipped').length;
  if (requests.length > 0 || skipped > 0) {
    const errors = requests.filter((i) => i.entry.status >= 400).length;
    next = {
      ...next,
      counts: { requests: next.counts.requests + requests.length, errors: next.counts.errors + errors, skipped: next.counts.skipped + skipped },
    };
  }
  const rate = items.filter((i) => i.kind === 'rate-limit');
  if (rate.length > 0)
    next = {
      ...next,
      rateLimits: applyRateChanges(
        next.rateLimits,
        rate.map((r) => r.change),
      ),
    };
  const listed = items.filter((i) => i.kind !== 'rate-limit' && i.kind !== 'skipped');
  if (listed.length === 0) return next;
  if (next.paused) return { ...next, held: [...next.held, ...listed].slice(-HISTORY.held) };
  return applyToLists(next, listed);
}

function applyToLists(state: DashboardState, items: FeedItem[]): DashboardState {
  const newRequests: RequestRow[] = [];
  const newEvents: DomainEventRow[] = [];
  let deliveries = state.deliveries;
  let wasReset = false;
  // a request can arrive on the stream and in the initial load: keep one
  const known = items.some((i) => i.kind === 'request') ? new Set(state.requests.map((r) => r.requestId)) : null;
  for (const item of items) {
    if (item.kind === 'request') {
      if (!known?.has(item.entry.requestId)) newRequests.push(item.entry);
    } else if (item.kind === 'domain') newEvents.push(item.event);
    else if (item.kind === 'delivery')
      deliveries = mergeDeliveries(deliveries, [
        applyDeliveryUpdate(
          deliveries.find((d) => d.id === item.update.id),
          item.update,
        ),
      ]);
    else if (item.kind === 'reset') {
      wasReset = true;
      deliveries = [];
      newEvents.push({ id: `reset_${item.at}`, type: 'sandbox.reset', workspaceId: '', createdAt: item.at, data: {} });
    }
  }
  return {
    ...state,
    requests: newRequests.length ? [...newRequests.reverse(), ...state.requests].slice(0, HISTORY.requests) : state.requests,
    events: newEvents.length ? [...newEvents.reverse(), ...state.events].slice(0, HISTORY.events) : state.events,
    deliveries: visible(deliveries, state.hiddenDeliveries),
    ...(wasReset ? { hiddenDeliveries: {} } : {}),
  };
}

function resume(state: DashboardState): DashboardState {
  const resumed = { ...state, paused: false, held: [], heldDeliveries: null };
  const withLists = applyToLists(resumed, state.held);
  return state.heldDeliveries ? { ...withLists, deliveries: mergeDeliveries(withLists.deliveries, state.heldDeliveries, state.hiddenDeliveries) } : withLists;
}

/**
 * Folds one attempt summary from the stream into what the dashboard knows of
 * the delivery: the status, next retry and attempt count at once; bodies and
 * headers come with the next poll of the whole record.
 */
export function applyDeliveryUpdate(known: DeliveryView | undefined, u: DeliveryUpdate): DeliveryView {
  const attempts = known?.attempts.filter((a) => a.number < u.attempt) ?? [];
  const previous = known?.attempts.find((a) => a.number === u.attempt);
  attempts.push(
    previous ?? {
      number: u.attempt,
      trigger: u.trigger,
      at: u.at,
      ...(u.url ? { request: { url: u.url } } : {}),
      response: u.responseStatus === null ? null : { status: u.responseStatus, bodyExcerpt: '' },
      latencyMs: u.latencyMs,
      error: u.error,
    },
  );
  return {
    ...(known ?? { createdAt: u.at }),
    id: u.id,
    workspaceId: u.workspaceId,
    subscriptionId: u.subscriptionId,
    eventId: u.eventId,
    eventType: u.eventType,
    status: u.status,
    maxAttempts: u.maxAttempts,
    nextAttemptAt: u.nextAttemptAt,
    ...(u.fault ? { fault: { ...known?.fault, summary: u.fault } } : {}),
    attempts,
  };
}

/** How many attempts a delivery has had (a view built from the stream may not list the early ones). */
export function attemptCount(d: DeliveryView): number {
  return d.attempts[d.attempts.length - 1]?.number ?? 0;
}

/**
 * Upserts by id, bounded; deliveries hidden by "clear" stay hidden until a new attempt. Ordered by
 * the time the row shows (its latest attempt), newest first, as the requests are: sorting by
 * creation would put a retried delivery below younger ones while it showed a later time.
 */
export function mergeDeliveries(current: DeliveryView[], incoming: DeliveryView[], hidden: Record<string, number> = {}): DeliveryView[] {
  const byId = new Map(current.map((d) => [d.id, d]));
  // a record from an older sandbox has no maxAttempts: keep the one a stream update brought
  for (const d of incoming)
    byId.set(d.id, d.maxAttempts === undefined && byId.get(d.id)?.maxAttempts !== undefined ? { ...d, maxAttempts: byId.get(d.id)!.maxAttempts! } : d);
  const merged = [...byId.values()].sort(
    (a, b) => deliveryTime(b).localeCompare(deliveryTime(a)) || (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.id.localeCompare(a.id),
  );
  return visible(merged, hidden).slice(0, HISTORY.deliveries);
}

function visible(list: DeliveryView[], hidden: Record<string, number>): DeliveryView[] {
  return list.filter((d) => hidden[d.id] === undefined || attemptCount(d) > hidden[d.id]!);
}

/** The time the webhooks panel shows for a delivery: its latest attempt, or its creation before any. */
export function deliveryTime(d: DeliveryView): string {
  return d.attempts[d.attempts.length - 1]?.at ?? d.createdAt ?? '';
}

function applyRateChanges(buckets: RateBucket[], changes: { bucket: string; limit: number; remaining: number; reset: number }[]): RateBucket[] {
  const next = [...buckets];
  for (const change of changes) {
    const index = next.findIndex((b) => b.bucket === change.bucket);
    if (index >= 0) next[index] = { ...next[index]!, limit: change.limit, remaining: change.remaining, reset: change.reset };
    else {
      const kind = change.bucket.startsWith('key:') ? 'key' : 'workspace';
      const id = change.bucket.slice(change.bucket.indexOf(':') + 1);
      next.push({
        bucket: change.bucket,
        kind,
        id,
        limit: change.limit,
        remaining: change.remaining,
        reset: change.reset,
        burst: 0,
        burstTokens: 0,
        perSecond: null,
      });
    }
  }
  return next;
}
