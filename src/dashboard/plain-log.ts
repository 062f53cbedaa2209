import { nextRetryAfter } from '../webhooks/retry-policy.ts';
import { clockTime, latency } from './format.ts';
import type { DashboardSource, DeliveryView, FeedItem, SourceSink } from './types.ts';

/**
 * The dashboard without a terminal (stdout is a pipe or a file): one line per
 * request, webhook delivery attempt and domain event, read from the same
 * source. Old deliveries found at connect time are not printed again.
 */
export function plainLogSink(write: (line: string) => void, names: () => Record<string, string> = () => ({})): SourceSink {
  const attemptsSeen = new Map<string, number>();
  let workspaceNames: Record<string, string> = {};
  const name = (id: string | null | undefined) => (id ? (workspaceNames[id] ?? names()[id] ?? id) : '-');
  const deliveries = (list: DeliveryView[], print: boolean) => {
    for (const d of list) {
      const seen = attemptsSeen.get(d.id) ?? 0;
      if (print) for (const a of d.attempts.slice(seen)) write(deliveryLine(d, a));
      attemptsSeen.set(d.id, Math.max(seen, d.attempts.length));
    }
  };
  let announced: string | null = null;
  return {
    status(status, detail) {
      const line = status === 'live' ? 'connected to the sandbox' : status === 'down' ? `sandbox unreachable (${detail ?? 'gone'}); reconnecting` : null;
      if (line && line !== announced) write(`${clockTime(new Date().toISOString())} ${line}`);
      if (line) announced = line;
    },
    initial(state) {
      workspaceNames = state.workspaceNames;
      deliveries(state.deliveries, false);
    },
    feed(item) {
      const line = feedLine(item, name);
      if (line) write(line);
    },
    deliveries: (list) => deliveries(list, true),
    rateLimits() {},
    clock() {},
  };
}

function feedLine(item: FeedItem, name: (id: string | null) => string): string | null {
  switch (item.kind) {
    case 'request': {
      const r = item.entry;
      return `${clockTime(r.at)} request  ${r.method} ${r.path} ${r.status} ${latency(r.latencyMs)} ${name(r.workspaceId)} ${r.keyPrefix ?? '-'} ${r.requestId}${r.reason ? ` ${r.reason}` : ''}`;
    }
    case 'domain':
      return `${clockTime(item.event.createdAt)} event    ${item.event.type} ${name(item.event.workspaceId)} ${item.event.id}`;
    case 'delivery':
      return null; // attempts are printed from the delivery list, once each
    case 'rate-limit':
      return item.change.remaining === 0
        ? `${clockTime(new Date(item.change.reset * 1000).toISOString())} limit    ${item.change.bucket} exhausted (resets ${new Date(item.change.reset * 1000).toISOString()})`
        : null;
    case 'reset':
      return `${clockTime(item.at)} reset    the sandbox went back to its fixtures`;
    case 'skipped':
      return `${clockTime(new Date().toISOString())} skipped  an unreadable ${item.event} event (${item.reason})`;
  }
}

function deliveryLine(d: DeliveryView, a: DeliveryView['attempts'][number]): string {
  const result = a.response ? String(a.response.status) : `no response (${a.error ?? 'error'})`;
  // the retry after this attempt, not the delivery's current one (several attempts can arrive in one poll)
  const nextAt = nextRetryAfter(d, a.number);
  const next = nextAt ? ` next retry ${nextAt}` : '';
  const fault = d.fault ? ` (${d.fault.summary})` : '';
  return `${clockTime(a.at)} delivery ${d.eventType} → ${a.request?.url ?? '?'} attempt ${a.number}${d.maxAttempts ? `/${d.maxAttempts}` : ''} ${d.status} ${result} ${latency(a.latencyMs)} ${d.id}${next}${fault}`;
}

/** Starts printing plain log lines; returns a function that stops. */
export function runPlainLog(source: DashboardSource, write: (line: string) => void): () => void {
  return source.start(plainLogSink(write));
}
