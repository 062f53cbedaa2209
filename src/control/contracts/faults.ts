import { z } from 'zod';
import { FaultRuleInputSchema } from '../../core/fault-rule.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

/** Fault injection: POST/GET/DELETE /__sandbox/faults (docs/control-plane.md); src/core/faults.ts applies the rules. */
export const FaultRuleSchema = z
  .object({
    id: z.string(),
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
    summary: 'Add a fault rule for /v1 requests; 404 when its workspace or key does not exist, 400 when no /v1 route has its path, 409 past 1,000 rules',
  },
  faults: { method: 'GET', path: '/faults', data: z.array(FaultRuleSchema), summary: 'The fault rules' },
  clearFaults: { method: 'DELETE', path: '/faults', data: z.object({ removed: z.number().int() }), summary: 'Remove every fault rule' },
  removeFault: { method: 'DELETE', path: '/faults/:id', params: z.object({ id: z.string() }), data: FaultRuleSchema, summary: 'Remove one fault rule' },
});
