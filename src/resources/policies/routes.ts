import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { PolicyParamsSchema, PolicyQuerySchema, PolicyResponseSchema } from './requests.ts';
import type { PolicyService } from './service.ts';

/**
 * API description, "Policies": GET answers the bare record, DELETE `{ok: true}`.
 * Scopes `policies:read|write` and DELETE's 200 are the sandbox's design.
 */
export function registerPolicyRoutes(app: ZodApp, service: PolicyService): void {
  app.get('/policies/:id', {
    schema: { params: PolicyParamsSchema, querystring: PolicyQuerySchema, response: { 200: PolicyResponseSchema, ...errorResponses } },
    config: { scope: 'policies:read', documentedStatuses: [200], summary: 'Get a policy in a locale' },
  }, async (request) => service.get(request.principal, request.params.id, request.query.locale));

  app.delete('/policies/:id', {
    schema: { params: PolicyParamsSchema, response: { 200: z.object({ ok: z.literal(true) }), ...errorResponses } },
    config: { scope: 'policies:write', summary: 'Delete a policy (200: inferred)' },
  }, async (request) => service.delete(request.principal, request.params.id));
}
