import { z } from 'zod';
import { formatDuration as span } from '../core/duration.ts';
import { DELIVERY_FAULT_ACTIONS } from '../core/fault-rule.ts';

/**
 * What a delivery rule did to a delivery, kept on its outbox row
 * (docs/webhooks.md, "Testing your receiver"), so that every reader (events
 * list/show, the control plane, the inspector, the dashboard, verify) can say
 * which deliveries a rule touched, and a test can assert on it. Rows no rule
 * touched have no `fault`, as every row written before delivery rules existed.
 */
export const DeliveryFaultSchema = z.object({
  ruleId: z.string(),
  action: z.enum(DELIVERY_FAULT_ACTIONS),
  /** reorder, latency, hold: how long the first attempt was held; duplicate: how long after the first answer the duplicate follows */
  delayMs: z.number().int().min(0).optional(),
  /** on the delivery a rule duplicated: its duplicate's id, once made */
  duplicateId: z.string().optional(),
  /** on a duplicate: the delivery it repeats, whose id is the webhook-id both carry */
  duplicateOf: z.string().optional(),
  /** held deliveries: the events to the same subscription that were sent while it waited (the first few) */
  overtakenBy: z.array(z.string()).optional(),
  /** how many events overtook it in all */
  overtakenCount: z.number().int().min(0).optional(),
  /** removing the rule (fault clear) sent it before its time */
  releasedAt: z.iso.datetime().optional(),
  /** seeds the retry jitter instead of the random delivery id, so a seeded rule's schedule repeats */
  jitterSeed: z.string().optional(),
});
export type DeliveryFault = z.infer<typeof DeliveryFaultSchema>;

/** The fault as the control plane shows it: what is stored, and one line that says it. */
export const DeliveryFaultViewSchema = DeliveryFaultSchema.omit({ jitterSeed: true })
  .extend({ summary: z.string().describe('"duplicate of dlv_…", "held 3s by fault_…, delivered after evt_…", "first attempt dropped by fault_…"') })
  .meta({ id: 'DeliveryFault' });
export type DeliveryFaultView = z.infer<typeof DeliveryFaultViewSchema>;

/** How many overtaking events a row names; the count says how many there were. */
export const OVERTAKERS_KEPT = 5;

/** The webhook-id a delivery is sent with: a duplicate carries the one of the delivery it repeats. */
export const webhookIdOf = (row: { id: string; fault?: DeliveryFault | undefined }): string => row.fault?.duplicateOf ?? row.id;

export const isDuplicate = (row: { fault?: DeliveryFault | undefined }): boolean => row.fault?.duplicateOf !== undefined;

export function faultView(fault: DeliveryFault, attempted: boolean): DeliveryFaultView {
  const { jitterSeed: _seed, ...shown } = fault;
  return { ...shown, summary: faultSummary(fault, attempted) };
}

/** One line: what the rule did, and, once known, what came of it. */
export function faultSummary(fault: DeliveryFault, attempted: boolean): string {
  const by = `by ${fault.ruleId}`;
  const released = fault.releasedAt ? `; released by fault clear at ${fault.releasedAt}` : '';
  switch (fault.action) {
    case 'duplicate':
      if (fault.duplicateOf)
        return `duplicate of ${fault.duplicateOf}, made ${by}${fault.delayMs ? ` ${span(fault.delayMs)} after its first answer` : ''}${released}`;
      return fault.duplicateId ? `duplicated ${by}: its duplicate is ${fault.duplicateId}` : `to be duplicated ${by} once its first attempt is answered`;
    case 'drop':
      return `first attempt dropped ${by} (not sent, treated as a timeout); the retry schedule runs`;
    default: {
      const how = fault.action === 'latency' ? `late ${span(fault.delayMs ?? 0)}` : `held ${span(fault.delayMs ?? 0)}`;
      const outage = fault.action === 'hold' ? ' (an outage)' : '';
      if (!attempted) return `${how} ${by}${outage}${released}`;
      return `${how} ${by}${outage}, ${overtaken(fault)}${released}`;
    }
  }
}

function overtaken(fault: DeliveryFault): string {
  const ids = fault.overtakenBy ?? [];
  if (ids.length === 0) return 'no later event overtook it';
  const more = (fault.overtakenCount ?? ids.length) - ids.length;
  return `delivered after ${ids.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}
