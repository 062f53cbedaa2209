import { z } from 'zod';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../core/error-codes.ts';

/**
 * Error bodies as the API description lists them ("Errors"), for route response schemas.
 * Each has an id (`.meta({ id })`): the OpenAPI document writes it once in
 * `components.schemas` and refers to it everywhere else (openapi-schemas.ts says why).
 */
/** Every code with its status and meaning, for the OpenAPI document (`x-error-codes`). */
export const ErrorCodeSchema = z
  .enum(ERROR_CODE_NAMES)
  .describe('stable error code (docs/api-notes.md, "Error codes"); absent on the documented 401, 403, 404, 429 and analytics 400 bodies')
  .meta({
    id: 'ErrorCode',
    'x-sandbox-inferred': true,
    'x-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, [status, meaning]]) => [code, { status, meaning }])),
  });

export const ErrorBodySchema = z
  .object({ error: z.string(), code: ErrorCodeSchema.optional(), details: z.array(z.object({ message: z.string() })).optional() })
  .passthrough()
  .meta({ id: 'ErrorBody' });
export const ValidationErrorBodySchema = z
  .object({
    error: z.string(),
    code: z.literal('VALIDATION_400'),
    details: z.array(z.object({ message: z.string() })),
  })
  .meta({ id: 'ValidationErrorBody' });
export const RateLimitErrorBodySchema = z.object({ error: z.literal('Rate limit exceeded'), retry_after: z.number().int() }).meta({ id: 'RateLimitErrorBody' });

export const errorResponses = {
  400: z.union([ValidationErrorBodySchema, ErrorBodySchema]).meta({ id: 'BadRequestBody' }),
  401: z.object({ error: z.literal('Unauthorized') }).meta({ id: 'UnauthorizedBody' }),
  403: z.object({ error: z.literal('Forbidden') }).meta({ id: 'ForbiddenBody' }),
  404: ErrorBodySchema,
  429: RateLimitErrorBodySchema,
};
