import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { PolicyParamsSchema, PolicyQuerySchema, PolicyResponseSchema } from './requests.ts';
import type { PolicyService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const DeletedPolicySchema = z.object({ ok: z.literal(true) });

/**
 * API description, "Policies": GET answers the bare record, DELETE `{ok: true}`.
 * Scopes `policies:read|write` and DELETE's 200 are the sandbox's design.
 */
export function registerPolicyRoutes(app: ZodApp, service: PolicyService): void {
  app.get(
    '/policies/:id',
    {
      schema: { params: PolicyParamsSchema, querystring: PolicyQuerySchema, response: { 200: PolicyResponseSchema, ...errorResponses } },
      config: { scope: 'policies:read', documentedStatuses: [200], summary: 'Get a policy in a locale' },
    },
    async (request) => service.get(request.principal, request.params.id, request.query.locale),
  );

  app.delete(
    '/policies/:id',
    {
      schema: { params: PolicyParamsSchema, response: { 200: DeletedPolicySchema, ...errorResponses } },
      config: { scope: 'policies:write', summary: 'Delete a policy (200: inferred)' },
    },
    async (request) => service.delete(request.principal, request.params.id),
  );
}
