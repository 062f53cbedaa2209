import { z } from 'zod';

/**
 * What a fault rule is made of (POST /__sandbox/faults): it matches requests
 * by method, path pattern, workspace or key, and answers a status and body,
 * adds latency, or drops the connection. Its own module, loaded with the
 * control plane's contract rather than at start; src/core/faults.ts
 * uses only its type.
 */
export const FaultRuleInputSchema = z
  .object({
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
    latencyMs: z.number().int().min(0).max(120_000).optional(),
    drop: z.boolean().optional(),
    times: z.number().int().min(1).max(1_000_000).optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
  })
  .refine((r) => r.status !== undefined || r.latencyMs !== undefined || r.drop === true, {
    message: 'a fault needs status, latencyMs or drop: true',
  })
  .refine((r) => !(r.drop && r.status !== undefined), { message: 'drop and status exclude each other' });
export type FaultRuleInput = z.infer<typeof FaultRuleInputSchema>;
