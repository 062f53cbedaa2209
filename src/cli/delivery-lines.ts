import type { DeliveryAttemptSummary, DeliverySummary } from '../control/client.ts';
import { nextRetryAfter } from '../webhooks/retry-policy.ts';
import { table } from './format.ts';

/** How `sandbox events list|show|wait` print deliveries and their attempts. */
export type ListedDelivery = DeliverySummary & { maxAttempts: number };

/** Why an attempt ended as it did, in a few words: the transport error, or what the receiver answered. */
export function attemptReason(a: DeliveryAttemptSummary): string {
  if (a.error) return a.error;
  if (!a.response) return 'no response';
  const { status } = a.response;
  return status >= 200 && status < 300 ? 'accepted' : status === 410 ? 'receiver answered 410: subscription disabled' : `receiver answered ${status}`;
}

/**
 * One row per delivery: id, event, status, attempts n/max, last answer, next retry or reason;
 * and what a delivery fault rule did to it, in a last column shown only when a rule touched one.
 */
export function deliveryTable(deliveries: readonly ListedDelivery[]): string {
  const faulted = deliveries.some((d) => d.fault);
  return table(
    ['ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST', 'NEXT RETRY / REASON', 'CREATED', ...(faulted ? ['FAULT'] : [])],
    deliveries.map((d) => {
      const last = d.attempts.at(-1);
      return [
        d.id,
        d.eventType,
        d.status,
        `${d.attempts.length}/${d.maxAttempts}`,
        last ? (last.response ? String(last.response.status) : 'ERR') : '-',
        d.status === 'pending' ? (d.nextAttemptAt ?? 'sending') : (d.reason ?? '-'),
        d.createdAt,
        ...(faulted ? [d.fault?.summary ?? '-'] : []),
      ];
    }),
  );
}

/** A delivery's header line and every attempt: time, trigger, status, latency, reason, next retry. */
export function deliveryDetails(d: ListedDelivery): string {
  const fault = d.fault ? `\nfault: ${d.fault.summary}` : '';
  const head = `${d.id}  ${d.eventType}  ${d.status}${d.reason ? ` (${d.reason})` : ''}  ${d.attempts.length}/${d.maxAttempts} attempts  workspace ${d.workspaceId}  subscription ${d.subscriptionId}${fault}`;
  if (d.attempts.length === 0) return `${head}\nNo attempt yet${d.nextAttemptAt ? `; the first is due at ${d.nextAttemptAt}` : ''}\n`;
  const rows = d.attempts.map((a) => [
    String(a.number),
    a.at,
    a.trigger,
    a.response ? String(a.response.status) : 'ERR',
    `${Math.round(a.latencyMs)}ms`,
    attemptReason(a),
    nextRetryAfter(d, a.number) ?? '-',
  ]);
  return `${head}\n${table(['#', 'AT', 'TRIGGER', 'STATUS', 'LATENCY', 'REASON', 'NEXT RETRY'], rows)}`;
}
