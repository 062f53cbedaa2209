import type { FaultInjector, FaultRule } from '../core/faults.ts';
import { newId } from '../core/ids.ts';
import { type DeliveryFault, isDuplicate, OVERTAKERS_KEPT } from './delivery-fault-record.ts';
import { matchesPattern } from './matching.ts';
import { type StoredDelivery, WEBHOOK_DELIVERIES } from './outbox.ts';

/**
 * Delivery fault rules (target: "delivery", docs/webhooks.md "Testing your
 * receiver"), as the dispatcher applies them. Real delivery is at least once
 * and unordered; these rules make it so on purpose, on the sandbox clock, and
 * seeded, so a receiver's test sees the same schedule in every run:
 *
 * - the rule is chosen once, when the delivery is written to the outbox, and
 *   kept on its row (`fault`), so a restart keeps what a rule decided;
 * - reorder, latency and hold set the first attempt's time (`nextAttemptAt`),
 *   which the clock runs like any retry: `clock advance`, `--to-next` and
 *   `events wait` release them, and nothing sleeps;
 * - drop records the first attempt as a timeout without sending it;
 * - duplicate writes a second row once the first attempt is answered, sent
 *   with the same webhook-id and body, signed afresh.
 *
 * The dispatcher calls these functions at those points; they decide, it writes and sends.
 */
export interface FaultPlan {
  fault: DeliveryFault;
  /** when the first attempt is due, for a held delivery; null: at once */
  dueMs: number | null;
}

interface NewDelivery {
  workspaceId: string;
  subscriptionId: string;
  eventType: string;
}

/** The actions that hold a delivery's first attempt back. */
const HOLDING = new Set(['reorder', 'latency', 'hold']);

export class DeliveryFaults {
  constructor(private readonly injector: FaultInjector) {}

  /** What the first delivery rule that fires makes of a new delivery; null when none does (and no rule is set: at no cost). */
  plan(delivery: NewDelivery, nowMs: number): FaultPlan | null {
    if (!this.injector.hasDeliveryRules()) return null;
    const hit = this.injector.takeDelivery((rule) => ruleMatches(rule, delivery, nowMs));
    if (!hit) return null;
    const { rule, action } = hit;
    // seeded by the rule's seed and its count of matches, not by the random delivery id
    const fault: DeliveryFault = { ruleId: rule.id, action, jitterSeed: `${action}:${hit.seed}:${hit.hit}` };
    const held = (ms: number): FaultPlan => ({ fault: { ...fault, delayMs: ms }, dueMs: nowMs + ms });
    switch (action) {
      case 'duplicate':
        return { fault: { ...fault, delayMs: rule.latencyMs ?? 0 }, dueMs: null };
      case 'drop':
        return { fault, dueMs: null };
      case 'reorder':
        return held(rule.reorderMs!);
      case 'latency':
        return held(rule.latencyMs!);
      case 'hold':
        // the outage ends at that time on the delivery's workspace clock (ruleMatches: not yet); it waits what is left
        return held(Date.parse(rule.holdUntil!) - nowMs);
    }
  }
}

/**
 * An outage is over for a workspace whose clock has passed its end, even while the rule, read on
 * the sandbox clock, is still listed (`events wait` moves a workspace's clock, not the sandbox's).
 */
function ruleMatches(rule: FaultRule, d: NewDelivery, nowMs: number): boolean {
  if (rule.workspaceId && rule.workspaceId !== d.workspaceId) return false;
  if (rule.holdUntil !== undefined && Date.parse(rule.holdUntil) <= nowMs) return false;
  if (rule.subscriptionId && rule.subscriptionId !== d.subscriptionId) return false;
  return !rule.event || matchesPattern(rule.event, d.eventType);
}

/** A delivery whose first attempt a rule holds back, and which has not been made yet. */
export const isHeld = (d: StoredDelivery): boolean =>
  d.status === 'pending' && d.attempts.length === 0 && d.fault !== undefined && (HOLDING.has(d.fault.action) || isDuplicate(d));

/** The first attempt of a delivery that was dropped: recorded as a timeout, never sent. */
export const dropsFirstAttempt = (d: StoredDelivery): boolean => d.fault?.action === 'drop' && d.attempts.length === 0;

export const droppedError = (ruleId: string): string => `dropped by ${ruleId}: not sent, treated as a timeout`;

/**
 * The later events to the same subscription whose first attempt was made while this held one
 * waited: the rows written after it (a partition keeps its rows in the order written) that were
 * tried. A duplicate written after it repeats an event that came before it, so it is not one.
 */
export function overtakers(partition: readonly StoredDelivery[], held: StoredDelivery): Pick<DeliveryFault, 'overtakenBy' | 'overtakenCount'> {
  const index = partition.findIndex((d) => d.id === held.id);
  const events: string[] = [];
  for (const d of partition.slice(index + 1)) {
    if (d.subscriptionId !== held.subscriptionId || d.attempts.length === 0 || isDuplicate(d)) continue;
    if (!events.includes(d.eventId)) events.push(d.eventId);
  }
  return { overtakenBy: events.slice(0, OVERTAKERS_KEPT), overtakenCount: events.length };
}

/** The duplicate of a delivery whose first attempt was just answered: a row of its own, sent with the original's webhook-id. */
export function duplicateOf(original: StoredDelivery, nowMs: number): StoredDelivery {
  const fault = original.fault!;
  const now = new Date(nowMs).toISOString();
  return {
    id: newId(WEBHOOK_DELIVERIES),
    workspaceId: original.workspaceId,
    subscriptionId: original.subscriptionId,
    eventId: original.eventId,
    eventType: original.eventType,
    status: 'pending',
    reason: null,
    retries: 0,
    nextAttemptAt: new Date(nowMs + (fault.delayMs ?? 0)).toISOString(),
    body: original.body,
    ...(original.url !== undefined ? { url: original.url } : {}),
    ...(original.headers !== undefined ? { headers: original.headers } : {}),
    createdAt: now,
    updatedAt: now,
    attempts: [],
    fault: { ruleId: fault.ruleId, action: 'duplicate', delayMs: fault.delayMs ?? 0, duplicateOf: original.id },
  };
}

/** Whether this record of a first attempt is the moment to make the delivery's duplicate. */
export const duplicateDue = (before: StoredDelivery, trigger: string): boolean =>
  before.fault?.action === 'duplicate' && !isDuplicate(before) && before.fault.duplicateId === undefined && trigger !== 'replay';
