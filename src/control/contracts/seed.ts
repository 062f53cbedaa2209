import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';

/** POST /__sandbox/seed (`sandbox seed`): more generated volume in a running sandbox (docs/cli.md). */
export const SeedBodySchema = z.object({
  workspaceId: z.string(),
  products: z.number().int().min(0).max(5000).optional(),
  bookings: z.number().int().min(0).max(50_000).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});
export type SeedBody = z.infer<typeof SeedBodySchema>;

export const SeedResultSchema = z.object({
  workspaceId: z.string(),
  seed: z.number().int(),
  created: z.record(z.string(), z.number().int()),
  /** existing departures whose seats the new bookings took */
  updated: z.object({ departures: z.number().int() }),
  /** what the run was asked to make: `created` may hold fewer bookings (see shortfall) */
  requested: z.object({ products: z.number().int(), bookings: z.number().int() }),
  /** one line when the run made fewer bookings than asked, saying why (the departures sold out) */
  shortfall: z.string().optional(),
  ms: z.number(),
});

export const SEED_ROUTES = defineRoutes({
  seed: {
    method: 'POST',
    path: '/seed',
    body: SeedBodySchema,
    data: SeedResultSchema,
    errors: [400, 404, 409],
    summary: 'Add generated products, departures, people and bookings to a workspace (deterministic per seed and state)',
  },
});
