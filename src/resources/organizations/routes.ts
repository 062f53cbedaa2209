import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Idempotency } from '../../core/idempotency.ts';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { CreateOrgKeyBodySchema, OrgKeyParamsSchema, OrgParamsSchema } from './requests.ts';
import { CreatedOrgKeySchema, OrgApiKeySchema, RevokedOrgKeySchema } from './schemas.ts';
import type { OrgKeyService } from './service.ts';

/**
 * API description, "Organization API keys". Bodies are wrapped in `data` as
 * documented; the status codes (201 on create, 200 otherwise), the scopes
 * `organizations:read|write` and the 404/409 rows are the sandbox's design
 * (docs/areas.md).
 */
export function registerOrganizationRoutes(app: ZodApp, service: OrgKeyService, idempotency: Idempotency): void {
  app.post('/organizations/:id/api-keys', {
    schema: {
      params: OrgParamsSchema,
      body: CreateOrgKeyBodySchema,
      response: { 201: z.object({ data: CreatedOrgKeySchema }), ...errorResponses },
    },
    config: { scope: 'organizations:write', summary: 'Issue an organization API key (201: inferred)' },
  }, async (request, reply) => {
    const data = await service.create(request.principal, request.params.id, request.body);
    await keepSecretOutOfReplay(request, idempotency, data.id);
    return reply.code(201).send({ data });
  });

  app.get('/organizations/:id/api-keys', {
    schema: { params: OrgParamsSchema, response: { 200: z.object({ data: z.array(OrgApiKeySchema) }), ...errorResponses } },
    config: { scope: 'organizations:read', summary: 'List an organization\'s API keys (prefix only, never the key; 200: inferred)' },
  }, async (request) => ({ data: service.list(request.principal, request.params.id) }));

  app.delete('/organizations/:id/api-keys/:keyId', {
    schema: {
      params: OrgKeyParamsSchema,
      response: { 200: z.object({ data: RevokedOrgKeySchema }), ...errorResponses, 409: errorResponses[404] },
    },
    config: { scope: 'organizations:write', summary: 'Revoke an organization API key (200, 404/409 rows: inferred)' },
  }, async (request) => ({ data: await service.revoke(request.principal, request.params.id, request.params.keyId) }));
}

/**
 * An Idempotency-Key replay would have to store the creation response, and
 * with it the full key, which must exist only as a hash. So the outcome saved
 * for the key is a 409 naming the created key instead: a retry never creates
 * a second key, and the secret is never written anywhere (docs/areas.md).
 */
async function keepSecretOutOfReplay(request: FastifyRequest, idempotency: Idempotency, keyId: string): Promise<void> {
  const key = request.idempotencyKey;
  if (!key) return;
  request.idempotencyKey = null;
  const body = JSON.stringify({
    error: `Organization API key ${keyId} was already created with this Idempotency-Key; its value is shown only once. List the keys to find it, or revoke it and create a new one`,
  });
  await idempotency.finish(request.principal.workspace.id, key, request.method, request.url, request.body, 409, body);
}
