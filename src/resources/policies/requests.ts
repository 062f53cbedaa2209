import { z } from 'zod';
import { PolicySchema } from './schemas.ts';

/** GET/DELETE /v1/policies/:id (API description, "Policies"). */
export const PolicyParamsSchema = z.object({ id: z.string().describe('policy id, pol_<uuid>') });

/** BCP 47-style tags: `en`, `ro`, `pt-BR`; case-insensitive. */
export const PolicyQuerySchema = z.object({
  locale: z
    .string()
    .regex(/^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/, 'locale must be a language tag such as en, ro or pt-BR')
    .optional()
    .describe("response locale; falls back to the language part, then to the policy's own locale"),
});

/** The response is exactly the description's policy fields: the stored translations map stays internal. */
export const PolicyResponseSchema = PolicySchema.omit({ translations: true });
export type PolicyResponse = z.infer<typeof PolicyResponseSchema>;
