import { ErrorBodySchema, errorResponses } from '../../http/error-schemas.ts';
import { inferredLimit } from '../../http/warnings.ts';
import type { ZodApp } from '../types.ts';
import {
  ConfirmResponseSchema,
  EmailConfirmBodySchema,
  EmailStartBodySchema,
  phoneDigits,
  phoneWarnings,
  SmsConfirmBodySchema,
  SmsStartBodySchema,
  StartResponseSchema,
  VerificationErrorSchema,
} from './requests.ts';
import type { VerificationService } from './service.ts';

/**
 * API description, "Verification": sms/start and email/confirm are documented;
 * email/start and sms/confirm are "not shown" and mirror them (inferred). The
 * code is never in a response. Scope `verification:write` and the 200 status
 * are the sandbox's design (docs/areas.md).
 */
// the four routes' error bodies, one schema object each (and an id), so the OpenAPI document writes them once
const BadRequestSchema = errorResponses[400].or(VerificationErrorSchema).meta({ id: 'VerificationBadRequestBody' });
// 422 is also the idempotency answer to a reused Idempotency-Key (no code; found by test/fuzz)
const UnprocessableSchema = VerificationErrorSchema.or(ErrorBodySchema).meta({ id: 'VerificationUnprocessableBody' });
const responses = (ok: typeof StartResponseSchema | typeof ConfirmResponseSchema) => ({
  200: ok,
  ...errorResponses,
  400: BadRequestSchema,
  422: UnprocessableSchema,
});
const scope = 'verification:write';

export function registerVerificationRoutes(app: ZodApp, service: VerificationService, strict: boolean): void {
  app.post(
    '/verify/sms/start',
    {
      schema: { body: SmsStartBodySchema, response: responses(StartResponseSchema) },
      config: { scope, summary: 'Send a 6-digit code by SMS (200 and failure bodies: inferred)', warnings: phoneWarnings },
    },
    async (request) =>
      service.start(request.principal, 'sms', phoneDigits(request.body.phone), (message, refusal) => inferredLimit(request, strict, message, refusal)),
  );

  app.post(
    '/verify/sms/confirm',
    {
      schema: { body: SmsConfirmBodySchema, response: responses(ConfirmResponseSchema) },
      config: { scope, summary: 'Check an SMS code', inferred: true, warnings: phoneWarnings },
    },
    async (request) => service.confirm(request.principal, 'sms', phoneDigits(request.body.phone), request.body.code),
  );

  app.post(
    '/verify/email/start',
    {
      schema: { body: EmailStartBodySchema, response: responses(StartResponseSchema) },
      config: { scope, summary: 'Send a 6-digit code by e-mail', inferred: true },
    },
    async (request) => service.start(request.principal, 'email', request.body.email, (message, refusal) => inferredLimit(request, strict, message, refusal)),
  );

  app.post(
    '/verify/email/confirm',
    {
      schema: { body: EmailConfirmBodySchema, response: responses(ConfirmResponseSchema) },
      config: { scope, summary: 'Check an e-mail code (200 and failure bodies: inferred)' },
    },
    async (request) => service.confirm(request.principal, 'email', request.body.email, request.body.code),
  );
}
