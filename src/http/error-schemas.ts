import { z } from 'zod';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../core/error-codes.ts';

/** Error bodies as the API description lists them ("Errors"), for route response schemas. */
/** Every code with its status and meaning, for the OpenAPI document (`x-error-codes`). */
export const ErrorCodeSchema = z
  .enum(ERROR_CODE_NAMES)
  .describe('stable error code (docs/api-notes.md, "Error codes")')
  .meta({ 'x-sandbox-inferred': true, 'x-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, [status, meaning]]) => [code, { status, meaning }])) });

export const ErrorBodySchema = z.object({ error: z.string(), code: ErrorCodeSchema.optional() }).passthrough();
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
