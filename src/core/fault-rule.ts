import { z } from 'zod';
import { DURATION_FORMS, parseDuration } from './duration.ts';

/**
 * What a fault rule is made of (POST /__sandbox/faults): it matches requests
 * by method, path pattern, workspace or key, and answers a status and body,
 * adds latency, or drops the connection. Its own module, loaded with the
 * control plane's contract rather than at start; src/core/faults.ts
 * uses only its type.
 */
/**
 * A rule's target: `request` (the default) as above, or `delivery`: it matches
 * webhook deliveries by event pattern, subscription or workspace, and
 * duplicates, reorders, delays, drops or holds them on the sandbox clock
 * (docs/webhooks.md, "Testing your receiver"; src/webhooks/delivery-faults.ts).
 */
export const FAULT_TARGETS = ['request', 'delivery'] as const;
export type FaultTargetKind = (typeof FAULT_TARGETS)[number];

/** A request rule's latency is real time (it emulates the network): two minutes at most. */
export const MAX_REQUEST_LATENCY_MS = 120_000;
/** A delivery rule's times are sandbox time, which a test advances: a week at most. */
export const MAX_DELIVERY_DELAY_MS = 7 * 86_400_000;

const REQUEST_ONLY = ['method', 'path', 'key', 'status', 'body', 'headers'] as const;
const DELIVERY_ONLY = ['event', 'subscriptionId', 'duplicate', 'reorderMs', 'holdUntil'] as const;

export const FaultRuleInputSchema = z
  .object({
    target: z.enum(FAULT_TARGETS).optional().describe('request (the default): /v1 requests; delivery: webhook deliveries'),
    method: z
      .string()
      .regex(/^[A-Za-z]+$/)
      .transform((m) => m.toUpperCase())
      .optional(),
    /** `*` matches within a segment, `**` across segments: `/v1/bookings/*` */
    path: z.string().startsWith('/').optional(),
    workspaceId: z.string().optional(),
    /** a key id (wkey_/orgkey_) or a key prefix as shown in listings */
    key: z.string().optional(),
    status: z.number().int().min(100).max(599).optional(),
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    latencyMs: z
      .number()
      .int()
      .min(0)
      .max(MAX_DELIVERY_DELAY_MS)
      .optional()
      .describe(
        'request: real time, at most 120000; delivery: sandbox time each matching delivery is late by, or with duplicate how long after the first answer the duplicate follows',
      ),
    drop: z.boolean().optional().describe('request: drop the connection; delivery: the first attempt is not sent (a timeout), so the retry schedule runs'),
    times: z.number().int().min(1).max(1_000_000).optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
    /** delivery: an event type or pattern (`booking.*`, `*`) */
    event: z.string().optional(),
    /** delivery: only deliveries to this subscription */
    subscriptionId: z.string().optional(),
    duplicate: z.boolean().optional().describe('delivery: send the event again, with the same webhook-id and body, after the first attempt is answered'),
    reorderMs: z
      .number()
      .int()
      .min(1)
      .max(MAX_DELIVERY_DELAY_MS)
      .optional()
      .describe('delivery: hold the event back this long, so that later events overtake it'),
    holdUntil: z
      .union([z.number().int().min(1).max(MAX_DELIVERY_DELAY_MS), z.string().min(1)])
      .optional()
      .describe('delivery: an outage until this ISO time, or for this long (ms, or 30s, 5m): matching deliveries wait, then all go at once'),
  })
  .superRefine((rule, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (rule.target === 'delivery') {
      const misplaced = REQUEST_ONLY.filter((field) => rule[field] !== undefined);
      if (misplaced.length) issue(`${misplaced.join(', ')}: request rules only; a delivery rule matches by event, subscriptionId and workspaceId`);
      const actions = deliveryActionsOf(rule);
      if (actions.length !== 1)
        issue(
          `a delivery rule does one thing: duplicate: true, reorderMs, latencyMs, drop: true or holdUntil (latencyMs with duplicate says when the duplicate follows); this one ${actions.length ? `asks for ${actions.join(' and ')}` : 'asks for none'}`,
        );
      if (typeof rule.holdUntil === 'string' && !isHoldText(rule.holdUntil))
        issue(`holdUntil "${rule.holdUntil}" is neither an ISO time (2026-01-15T10:00:00Z) nor a duration (${DURATION_FORMS})`);
      return;
    }
    const misplaced = DELIVERY_ONLY.filter((field) => rule[field] !== undefined);
    if (misplaced.length) issue(`${misplaced.join(', ')}: delivery rules only; add target: "delivery"`);
    if (rule.status === undefined && rule.latencyMs === undefined && rule.drop !== true) issue('a fault needs status, latencyMs or drop: true');
    if (rule.drop && rule.status !== undefined) issue('drop and status exclude each other');
    if ((rule.latencyMs ?? 0) > MAX_REQUEST_LATENCY_MS) issue(`latencyMs of a request rule is real time: at most ${MAX_REQUEST_LATENCY_MS}`);
  });
export type FaultRuleInput = z.infer<typeof FaultRuleInputSchema>;

export const DELIVERY_FAULT_ACTIONS = ['duplicate', 'reorder', 'latency', 'drop', 'hold'] as const;
export type DeliveryFaultAction = (typeof DELIVERY_FAULT_ACTIONS)[number];

/** The actions a delivery rule asks for (one when it is valid). */
export function deliveryActionsOf(rule: Pick<FaultRuleInput, 'duplicate' | 'reorderMs' | 'latencyMs' | 'drop' | 'holdUntil'>): DeliveryFaultAction[] {
  const actions: DeliveryFaultAction[] = [];
  if (rule.duplicate) actions.push('duplicate');
  if (rule.reorderMs !== undefined) actions.push('reorder');
  if (rule.latencyMs !== undefined && !rule.duplicate) actions.push('latency');
  if (rule.drop) actions.push('drop');
  if (rule.holdUntil !== undefined) actions.push('hold');
  return actions;
}

/** An ISO time, or a duration as the CLI writes it. */
function isHoldText(text: string): boolean {
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return !Number.isNaN(Date.parse(text));
  try {
    return parseDuration(text) > 0;
  } catch {
    return false;
  }
}
