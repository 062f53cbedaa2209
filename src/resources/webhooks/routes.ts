import { z } from 'zod';
import { pageOf, paginationQuery } from '../../core/pagination.ts';
import { errorResponses } from '../../http/error-schemas.ts';
import { addStateWarnings } from '../../http/warnings.ts';
import type { ZodApp } from '../types.ts';
import { CreateSubscriptionBodySchema, eventWarnings, UpdateSubscriptionBodySchema } from './requests.ts';
import { CreatedSubscriptionEnvelopeSchema, SubscriptionEnvelopeSchema, SubscriptionIdParamsSchema, SubscriptionListSchema } from './schemas.ts';
import type { WebhookSubscriptionService } from './service.ts';
import { warning, type SandboxWarning } from '../../core/warnings.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const SubscriptionsQuerySchema = z.object(paginationQuery(50));
const NoBodySchema = z.null().describe('no body');

/**
 * The description lists GET, GET :id and PATCH under "Webhook subscriptions" and names neither
 * POST nor DELETE: every answer of those two says so, and --strict refuses them.
 */
function undocumented(route: string): SandboxWarning {
  return warning(
    'UNDOCUMENTED_ENDPOINT',
    `${route} is not in the API description (it names list, get and PATCH); designed by the sandbox, production may not have it`,
  );
}
const createWarnings = (body: Parameters<typeof eventWarnings>[0]) => [...eventWarnings(body), undocumented('POST /v1/webhooks/subscriptions')];
const deleteWarnings = () => [undocumented('DELETE /v1/webhooks/subscriptions/:id')];

/**
 * "must be HTTPS" (API description): plain http:// to a loopback host is accepted so a local
 * receiver works, and every such answer says production refuses it. Not a
 * guess about the request, so --strict does not refuse it; --strict-webhook-urls does.
 */
const loopbackHttp = (url: string | undefined): SandboxWarning[] =>
  url?.startsWith('http:')
    ? [
        warning(
          'LOOPBACK_HTTP_URL',
          `${url.slice(0, 80)} is plain http:// to a loopback host: accepted for a local receiver; production requires https:// (--strict-webhook-urls refuses it here too)`,
        ),
      ]
    : [];

/**
 * API description, "Webhook subscriptions": list, get and PATCH as described;
 * create (201, secret shown once) and delete (204) are "not shown" and
 * designed by the sandbox (docs/webhooks.md).
 */
export function registerWebhookRoutes(app: ZodApp, service: WebhookSubscriptionService): void {
  app.get(
    '/webhooks/subscriptions',
    {
      // "List endpoints take limit and offset" (Common request rules); the documented envelope {data} has no pagination
      schema: { querystring: SubscriptionsQuerySchema, response: { 200: SubscriptionListSchema, ...errorResponses } },
      config: {
        scope: 'webhooks:read',
        documentedScope: true,
        documentedStatuses: [200],
        summary: 'List webhook subscriptions; limit and offset as every list',
      },
    },
    async (request) => {
      addStateWarnings(request, service.disabledWarnings(request.principal));
      return { data: pageOf(service.list(request.principal), request.query) };
    },
  );

  app.get(
    '/webhooks/subscriptions/:id',
    {
      schema: { params: SubscriptionIdParamsSchema, response: { 200: SubscriptionEnvelopeSchema, ...errorResponses } },
      config: { scope: 'webhooks:read', documentedScope: true, documentedStatuses: [200], summary: 'Get a webhook subscription' },
    },
    async (request) => {
      const data = service.get(request.principal, request.params.id);
      addStateWarnings(request, service.disabledWarnings(request.principal, request.params.id));
      return { data };
    },
  );

  app.patch(
    '/webhooks/subscriptions/:id',
    {
      schema: { params: SubscriptionIdParamsSchema, body: UpdateSubscriptionBodySchema, response: { 200: SubscriptionEnvelopeSchema, ...errorResponses } },
      config: { scope: 'webhooks:write', documentedScope: true, documentedStatuses: [200], summary: 'Update a webhook subscription', warnings: eventWarnings },
    },
    async (request) => {
      const data = await service.update(request.principal, request.params.id, request.body);
      addStateWarnings(request, loopbackHttp(request.body.url));
      return { data };
    },
  );

  app.post(
    '/webhooks/subscriptions',
    {
      schema: { body: CreateSubscriptionBodySchema, response: { 201: CreatedSubscriptionEnvelopeSchema, ...errorResponses } },
      config: { scope: 'webhooks:write', summary: 'Create a webhook subscription (the secret is shown once)', inferred: true, warnings: createWarnings },
    },
    async (request, reply) => {
      const data = await service.create(request.principal, request.body);
      addStateWarnings(request, loopbackHttp(request.body.url));
      return reply.code(201).send({ data });
    },
  );

  app.delete(
    '/webhooks/subscriptions/:id',
    {
      schema: { params: SubscriptionIdParamsSchema, response: { 204: NoBodySchema, ...errorResponses } },
      config: { scope: 'webhooks:write', summary: 'Delete a webhook subscription', inferred: true, warnings: deleteWarnings },
    },
    async (request, reply) => {
      await service.delete(request.principal, request.params.id);
      return reply.code(204).send(null);
    },
  );
}
