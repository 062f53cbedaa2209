import { matchesFilter } from './format.ts';
import type { DashboardState } from './state.ts';
import type { DeliveryView, DomainEventRow, RateBucket, RequestRow } from './types.ts';

/**
 * The dashboard's interaction state as a pure reducer: the focused panel, the
 * selection (by id, so it stays on its row while new rows arrive on top), the
 * "/" filter, and which overlay is open.
 */
export const PANELS = ['requests', 'deliveries', 'rateLimits', 'events'] as const;
export type Panel = (typeof PANELS)[number];

export interface UiState {
  panel: Panel;
  selected: Record<Panel, string | null>;
  filter: string;
  /** the filter being typed after "/", or null when not editing */
  draft: string | null;
  details: boolean;
  help: boolean;
  /** the workspaces' keys (K): what the banner shows without --dashboard */
  keys: boolean;
  message: string | null;
}

export type UiAction =
  | { type: 'next-panel'; delta: 1 | -1 }
  | { type: 'move'; delta: number; ids: string[] }
  | { type: 'toggle-details' }
  | { type: 'close' }
  | { type: 'toggle-help' }
  | { type: 'toggle-keys' }
  | { type: 'edit-filter' }
  | { type: 'draft'; text: string }
  | { type: 'apply-filter' }
  | { type: 'message'; text: string | null }
  | { type: 'clear' };

export function initialUiState(): UiState {
  return {
    panel: 'requests',
    selected: { requests: null, deliveries: null, rateLimits: null, events: null },
    filter: '',
    draft: null,
    details: false,
    help: false,
    keys: false,
    message: null,
  };
}

export function uiReducer(state: UiState, action: UiAction): UiState {
  // a message stays until the next key
  const ui = action.type === 'message' || state.message === null ? state : { ...state, message: null };
  switch (action.type) {
    case 'next-panel': {
      const index = (PANELS.indexOf(ui.panel) + action.delta + PANELS.length) % PANELS.length;
      return { ...ui, panel: PANELS[index]!, details: false };
    }
    case 'move': {
      if (action.ids.length === 0) return ui;
      const current = Math.max(0, action.ids.indexOf(ui.selected[ui.panel] ?? ''));
      const index = Math.min(action.ids.length - 1, Math.max(0, current + action.delta));
      return { ...ui, selected: { ...ui.selected, [ui.panel]: action.ids[index]! } };
    }
    case 'toggle-details':
      return { ...ui, details: !ui.details, help: false, keys: false };
    case 'close':
      return { ...ui, details: false, help: false, keys: false, draft: null };
    case 'toggle-help':
      return { ...ui, help: !ui.help, keys: false };
    case 'toggle-keys':
      return { ...ui, keys: !ui.keys, help: false };
    // the draft starts empty, so "/ then Enter" clears the filter (docs/dashboard.md); the footer shows the old one
    case 'edit-filter':
      return { ...ui, draft: '' };
    case 'draft':
      return { ...ui, draft: action.text };
    case 'apply-filter':
      return { ...ui, filter: (ui.draft ?? ui.filter).trim(), draft: null };
    case 'message':
      return { ...ui, message: action.text };
    case 'clear':
      return { ...ui, selected: initialUiState().selected, details: false };
  }
}

export interface VisibleRows {
  requests: RequestRow[];
  deliveries: DeliveryView[];
  rateLimits: RateBucket[];
  events: DomainEventRow[];
}

/** The rows each panel shows under the filter (requests by path or status; deliveries by type, URL or status). */
export function visibleRows(state: DashboardState, filter: string): VisibleRows {
  return {
    requests: filter ? state.requests.filter((r) => matchesFilter(filter, r.path, r.status)) : state.requests,
    deliveries: filter
      ? state.deliveries.filter((d) => matchesFilter(filter, `${d.eventType} ${targetUrl(d)}`, lastStatus(d) ?? d.status) || d.status === filter.trim())
      : state.deliveries,
    rateLimits: state.rateLimits,
    events: filter ? state.events.filter((e) => e.type.includes(filter.trim())) : state.events,
  };
}

export type Listed = 'requests' | 'deliveries' | 'events';
const NOUNS: Record<Listed, [string, string]> = {
  requests: ['request', 'requests'],
  deliveries: ['webhook delivery', 'webhook deliveries'],
  events: ['domain event', 'domain events'],
};

/**
 * What an empty panel says. "No … yet" only when nothing came: rows the filter hides are
 * counted, and after "c" the panel says it was cleared, with the request count the header
 * shows (never "no requests yet" under "18 req", nor "no domain events yet" under "4xx").
 */
export function emptyNote(panel: Listed, state: DashboardState, filter: string): string {
  const total = state[panel].length;
  const [one, many] = NOUNS[panel];
  if (filter && total > 0) return `  ${total} ${total === 1 ? one : many} hidden by the filter "${filter}"`;
  if (state.cleared) {
    if (panel === 'requests') return `  view cleared (c): ${state.counts.requests} ${state.counts.requests === 1 ? one : many} so far, new ones appear here`;
    if (panel === 'deliveries') return '  view cleared (c); a delivery shows again at its next attempt';
    return '  view cleared (c); new domain events appear here';
  }
  if (panel === 'requests') return filter ? '  no requests yet' : '  no requests yet: send one to /v1';
  return `  no ${many} yet`;
}

export function rowIds(rows: VisibleRows, panel: Panel): string[] {
  switch (panel) {
    case 'requests':
      return rows.requests.map((r) => r.requestId);
    case 'deliveries':
      return rows.deliveries.map((d) => d.id);
    case 'rateLimits':
      return rows.rateLimits.map((b) => b.bucket);
    case 'events':
      return rows.events.map((e) => e.id);
  }
}

/** The selected row's index: the chosen id, or the newest row while nothing is chosen. */
export function selectedIndex(ids: string[], selected: string | null): number {
  const index = selected === null ? 0 : ids.indexOf(selected);
  return index === -1 ? 0 : index;
}

export function targetUrl(d: DeliveryView): string {
  return d.attempts[d.attempts.length - 1]?.request?.url ?? '';
}

export function lastStatus(d: DeliveryView): number | null {
  return d.attempts[d.attempts.length - 1]?.response?.status ?? null;
}
