import { z } from 'zod';
import { FAULT_TARGETS, FaultRuleInputSchema } from '../../core/fault-rule.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

/**
 * Fault injection: POST/GET/DELETE /__sandbox/faults (docs/control-plane.md). src/core/faults.ts
 * applies the request rules, src/webhooks/delivery-faults.ts the delivery rules.
 */
export const FaultRuleSchema = z
  .object({
    id: z.string(),
    target: z.enum(FAULT_TARGETS),
    method: z.string().optional(),
    path: z.string().optional(),
    workspaceId: z.string().optional(),
    key: z.string().optional(),
    status: z.number().int().optional(),
    body: z.unknown().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    latencyMs: z.number().int().optional(),
    drop: z.boolean().optional(),
    times: z.number().int().optional(),
    probability: z.number().optional(),
    seed: z.number().int().optional(),
    event: z.string().optional(),
    subscriptionId: z.string().optional(),
    duplicate: z.boolean().optional(),
    reorderMs: z.number().int().optional(),
    holdUntil: z.string().optional().describe("the outage's end, an ISO time on the rule's workspace clock (the global clock without one)"),
    /** matches left; null = unlimited (probability rules) */
    remaining: z.number().int().nullable(),
    hits: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'FaultRule' });

export const FAULT_ROUTES = defineRoutes({
  addFault: {
    method: 'POST',
    path: '/faults',
    body: FaultRuleInputSchema,
    data: FaultRuleSchema,
    statuses: [201],
    errors: [404, 409],
    summary:
      'Add a fault rule for /v1 requests, or (target: delivery) for webhook deliveries; 404 when its workspace, key or subscription does not exist, 400 when no /v1 route has its path or no event its pattern, 409 past 1,000 rules',
  },
  faults: { method: 'GET', path: '/faults', data: z.array(FaultRuleSchema), summary: 'The fault rules' },
  clearFaults: {
    method: 'DELETE',
    path: '/faults',
    data: z.object({
      removed: z.number().int(),
      released: z.number().int().describe('deliveries the removed delivery rules held, sent now in the order they were made'),
    }),
    summary: 'Remove every fault rule; the deliveries they held are sent now',
  },
  removeFault: {
    method: 'DELETE',
    path: '/faults/:id',
    params: z.object({ id: z.string() }),
    data: FaultRuleSchema,
    summary: 'Remove one fault rule; the deliveries it held are sent now',
  },
});
