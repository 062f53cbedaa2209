import type { DeliveryUpdate } from '../core/events.ts';
import type { StoredAttempt } from './attempt-record.ts';
import { faultSummary, isDuplicate } from './delivery-fault-record.ts';
import type { StoredDelivery } from './outbox.ts';
import { classify, honoursRetryAfter, maxAttempts, parseRetryAfter, retryDelayMs } from './retry-policy.ts';
import { bookkeeping, stoppedReason } from './subscription-health.ts';
import type { Subscription } from './subscriptions.ts';

/**
 * What one attempt's result makes of its delivery and of its subscription's
 * health (docs/webhooks.md, "Retries"): decided here, without side effects; the
 * dispatcher writes it in one commit, tells the bus and schedules the retry.
 */
export interface Settled {
  next: StoredDelivery;
  /** the subscription with its new bookkeeping, when it still exists */
  subscription: Subscription | undefined;
  /** when the next retry is due, or null when there is none */
  retryAt: number | null;
}

export function settle(delivery: StoredDelivery, sub: Subscription | undefined, attempt: StoredAttempt, now: number, retryScale: number): Settled {
  // cut off (timeout, reset, body too large) counts as a failure whatever the status line said
  const outcome = attempt.error ? 'retryable' : classify(attempt.status);
  const next: StoredDelivery = { ...delivery, attempts: [...delivery.attempts, attempt], updatedAt: new Date(now).toISOString() };
  let retryAt: number | null = null;
  // the bookkeeping first: this failure may be the one that disables the subscription
  const updatedSub = sub && bookkeeping(sub, outcome, attempt.at, retryScale);
  if (outcome === 'succeeded') {
    Object.assign(next, { status: 'succeeded', reason: null, nextAttemptAt: null });
  } else if (outcome === 'gone') {
    Object.assign(next, { status: 'failed', reason: 'receiver answered 410 Gone; subscription deactivated', nextAttemptAt: null });
  } else if (attempt.trigger !== 'replay' && delivery.status === 'pending' && isDuplicate(delivery)) {
    // a duplicate stands for the repeat a lost answer causes: sent once, while the delivery it repeats carries the retries
    Object.assign(next, { status: 'failed', reason: 'a duplicate is sent once; the delivery it repeats carries the retries', nextAttemptAt: null });
  } else if (attempt.trigger !== 'replay' && delivery.status === 'pending') {
    // (a delivery expired while its attempt was in flight keeps its status: no more retries)
    retryAt = updatedSub && !updatedSub.active ? null : nextRetryAt(delivery, sub, attempt, now, retryScale);
    if (updatedSub && !updatedSub.active) Object.assign(next, { status: 'cancelled', reason: stoppedReason(updatedSub), nextAttemptAt: null });
    else if (retryAt === null) Object.assign(next, { status: 'failed', reason: `no retries left (max_retries ${sub?.max_retries ?? 0})`, nextAttemptAt: null });
    else Object.assign(next, { retries: delivery.retries + 1, nextAttemptAt: new Date(retryAt).toISOString() });
  }
  return { next, subscription: updatedSub, retryAt };
}

/** At most max_retries retries per event; Retry-After on 429/503 replaces the scheduled delay. */
function nextRetryAt(delivery: StoredDelivery, sub: Subscription | undefined, attempt: StoredAttempt, now: number, retryScale: number): number | null {
  if (!sub || delivery.retries >= sub.max_retries) return null;
  const retryAfter = honoursRetryAfter(attempt.status) ? parseRetryAfter(attempt.responseHeaders?.['retry-after'], attempt.responseHeaders?.date) : null;
  // a seeded rule's delivery is jittered by the rule's seed, so its retries fall at the same moments in every run
  return now + (retryAfter ?? retryDelayMs(delivery.retries + 1, delivery.fault?.jitterSeed ?? delivery.id, retryScale));
}

/** The bus's `delivery` event for an attempt (the dashboard, the SSE stream, the run report). */
export function deliveryUpdate(next: StoredDelivery, sub: Subscription | undefined, attempt: StoredAttempt): DeliveryUpdate {
  return {
    id: next.id,
    workspaceId: next.workspaceId,
    subscriptionId: next.subscriptionId,
    eventId: next.eventId,
    url: sub?.url ?? null,
    eventType: next.eventType,
    status: next.status,
    trigger: attempt.trigger,
    attempt: next.attempts.length,
    maxAttempts: isDuplicate(next) ? 1 : maxAttempts(sub),
    responseStatus: attempt.status,
    latencyMs: attempt.latencyMs,
    error: attempt.error,
    nextAttemptAt: next.nextAttemptAt,
    at: attempt.at,
    ...(next.fault ? { fault: faultSummary(next.fault, true) } : {}),
  };
}
