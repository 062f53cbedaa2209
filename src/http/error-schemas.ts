import { z } from 'zod';

/** Error bodies as the API description lists them ("Errors"), for route response schemas. */
export const ErrorBodySchema = z.object({ error: z.string() }).passthrough();
export const ValidationErrorBodySchema = z.object({
  error: z.string(),
  code: z.literal('VALIDATION_400'),
  details: z.array(z.object({ message: z.string() })),
});
export const RateLimitErrorBodySchema = z.object({ error: z.literal('Rate limit exceeded'), retry_after: z.number().int() });

export const errorResponses = {
  400: z.union([ValidationErrorBodySchema, ErrorBodySchema]),
  401: z.object({ error: z.literal('Unauthorized') }),
  403: z.object({ error: z.literal('Forbidden') }),
  404: ErrorBodySchema,
  429: RateLimitErrorBodySchema,
};
