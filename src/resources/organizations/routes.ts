import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageOf, paginationQuery } from '../../core/pagination.ts';
import { MAX_SECRET_REPLAYS, type Idempotency } from '../../core/idempotency.ts';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { CreateOrgKeyBodySchema, OrgKeyParamsSchema, OrgParamsSchema } from './requests.ts';
import { CreatedOrgKeySchema, OrgApiKeySchema, RevokedOrgKeySchema, type CreatedOrgKey } from './schemas.ts';
import type { OrgKeyService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const CreatedOrgKeyEnvelopeSchema = z.object({ data: CreatedOrgKeySchema });
const OrgKeysQuerySchema = z.object(paginationQuery(50));
const OrgKeyListSchema = z.object({ data: z.array(OrgApiKeySchema) });
const RevokedOrgKeyEnvelopeSchema = z.object({ data: RevokedOrgKeySchema });

/**
 * API description, "Organization API keys". Bodies are wrapped in `data` as
 * documented; the status codes (201 on create, 200 otherwise), the scopes
 * `organizations:read|write` and the 404/409 rows are the sandbox's design
 * (docs/areas.md).
 */
export function registerOrganizationRoutes(app: ZodApp, service: OrgKeyService, idempotency: Idempotency): void {
  app.post(
    '/organizations/:id/api-keys',
    {
      schema: {
        params: OrgParamsSchema,
        body: CreateOrgKeyBodySchema,
        response: { 201: CreatedOrgKeyEnvelopeSchema, ...errorResponses },
      },
      // every field has a default in the description: no body at all is the defaults (src/http/empty-body.ts)
      config: { scope: 'organizations:write', summary: 'Issue an organization API key (201: inferred)' },
    },
    async (request, reply) => {
      const data = await service.create(request.principal, request.params.id, request.body);
      await saveReplay(request, idempotency, data);
      return reply.code(201).send({ data });
    },
  );

  app.get(
    '/organizations/:id/api-keys',
    {
      // "List endpoints take limit and offset" (Common request rules); the documented envelope {data} has no pagination
      schema: { params: OrgParamsSchema, querystring: OrgKeysQuerySchema, response: { 200: OrgKeyListSchema, ...errorResponses } },
      config: {
        scope: 'organizations:read',
        summary: "List an organization's API keys (prefix only, never the key; 200: inferred); limit and offset as every list",
      },
    },
    async (request) => ({ data: pageOf(service.list(request.principal, request.params.id), request.query) }),
  );

  app.delete(
    '/organizations/:id/api-keys/:keyId',
    {
      schema: {
        params: OrgKeyParamsSchema,
        response: { 200: RevokedOrgKeyEnvelopeSchema, ...errorResponses, 409: errorResponses[404] },
      },
      config: { scope: 'organizations:write', summary: 'Revoke an organization API key (200, 404/409 rows: inferred)' },
    },
    async (request) => ({ data: await service.revoke(request.principal, request.params.id, request.params.keyId) }),
  );
}

/**
 * A retry with the same Idempotency-Key gets the creation answer again, key included, as Stripe
 * replays a first response whose answer was lost. The full key must exist on disk
 * only as a hash, so that answer is kept in memory only, for the idempotency window; the outcome
 * saved on disk is a 409 KEY_NOT_REPLAYABLE naming the key created, which a retry gets after a
 * restart: never a second key, and the secret is never written anywhere (docs/api-notes.md).
 */
async function saveReplay(request: FastifyRequest, idempotency: Idempotency, data: CreatedOrgKey): Promise<void> {
  const key = request.idempotencyKey;
  if (!key) return;
  request.idempotencyKey = null;
  const saved = JSON.stringify({
    error: `Organization API key ${data.id} was already created with this Idempotency-Key; its value is replayed only from memory, never written to disk, and this sandbox has restarted since (or forgot it among ${MAX_SECRET_REPLAYS} newer ones). List the keys to find it, or revoke it and create a new one`,
    code: 'KEY_NOT_REPLAYABLE',
  });
  const workspaceId = request.principal.workspace.id;
  await idempotency.finishWithSecret(
    workspaceId,
    key,
    request.method,
    request.url,
    request.body,
    { statusCode: 409, payload: saved },
    { statusCode: 201, payload: JSON.stringify({ data }) },
  );
}
