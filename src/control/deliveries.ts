import { z } from 'zod';
import { COLLECTIONS } from '../core/collections.ts';
import { notFound } from '../core/errors.ts';
import type { Principal } from '../core/auth.ts';
import type { SandboxContext } from '../context.ts';
import { errorResponses } from '../http/error-schemas.ts';
import { CreateSubscriptionBodySchema } from '../resources/webhooks/requests.ts';
import { subscriptionView, WebhookSubscriptionSchema, type WebhookSubscriptionRecord } from '../resources/webhooks/schemas.ts';
import { WebhookSubscriptionService } from '../resources/webhooks/service.ts';
import type { ZodApp } from '../resources/types.ts';
import { DELIVERY_STATUSES, DeliverySchema } from '../webhooks/outbox.ts';
import { requireWorkspace } from './workspace-keys.ts';

/**
 * Webhook deliveries on the control plane (docs/webhooks.md): the attempt log,
 * replay, and the subscription the CLI's `listen` command uses (the CLI has no
 * API key, so it subscribes here rather than through /v1).
 */
const DeliveryQuerySchema = z.object({
  workspaceId: z.string().optional(),
  subscriptionId: z.string().optional(),
  eventType: z.string().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
const IdParams = z.object({ id: z.string() });
const ListenBodySchema = CreateSubscriptionBodySchema.safeExtend({ workspaceId: z.string().min(1) });
const ListenResultSchema = z.object({
  data: z.object({ subscription: WebhookSubscriptionSchema, secret: z.string(), created: z.boolean() }),
});
const FindSubscriptionQuerySchema = z.object({ workspaceId: z.string().min(1), url: z.string().min(1) });
const FoundSubscriptionSchema = z.object({ data: z.object({ subscription: WebhookSubscriptionSchema, secret: z.string() }) });
const SetActiveBodySchema = z.object({ workspaceId: z.string().min(1), active: z.boolean() });

export function registerDeliveryControl(app: ZodApp, ctx: SandboxContext): void {
  app.get('/deliveries', {
    schema: { querystring: DeliveryQuerySchema, response: { 200: z.object({ data: z.array(DeliverySchema) }), 400: errorResponses[400] } },
    config: { summary: 'Webhook deliveries and their attempts, newest first' },
  }, async (request) => {
    const { limit, ...filter } = request.query;
    return { data: ctx.webhooks.outbox.list(filter).slice(0, limit) };
  });

  app.get('/deliveries/:id', {
    schema: { params: IdParams, response: { 200: z.object({ data: DeliverySchema }), 404: errorResponses[404] } },
  }, async (request) => ({ data: requireDelivery(ctx, request.params.id) }));

  app.post('/deliveries/:id/replay', {
    schema: { params: IdParams, response: { 200: z.object({ data: DeliverySchema }), 404: errorResponses[404], 409: errorResponses[404] } },
    config: { summary: 'Send a delivery again now (same webhook-id; not counted against max_retries)' },
  }, async (request) => {
    const replayed = await ctx.webhooks.replay(requireDelivery(ctx, request.params.id));
    return { data: replayed ?? requireDelivery(ctx, request.params.id) };
  });

  app.post('/webhook-subscriptions', {
    schema: { body: ListenBodySchema, response: { 200: ListenResultSchema, 201: ListenResultSchema, 400: errorResponses[400], 404: errorResponses[404] } },
    config: { summary: 'Create, or reuse by URL, a subscription and return its secret (sandbox listen)' },
  }, async (request, reply) => {
    const { workspaceId, ...body } = request.body;
    const result = await ensureSubscription(ctx, workspaceId, body);
    return reply.code(result.created ? 201 : 200).send({ data: result });
  });

  // Read-only: `sandbox listen --print-secret` must not change a subscription (as `stripe listen --print-secret`).
  app.get('/webhook-subscriptions/by-url', {
    schema: { querystring: FindSubscriptionQuerySchema, response: { 200: FoundSubscriptionSchema, 404: errorResponses[404] } },
    config: { summary: 'The subscription to a URL in a workspace, with its secret (read-only)' },
  }, async (request) => {
    const workspace = requireWorkspace(ctx, request.query.workspaceId);
    const found = ctx.store.list<WebhookSubscriptionRecord>(COLLECTIONS.webhookSubscriptions, workspace.id).find((s) => s.url === request.query.url);
    if (!found) throw notFound(`Subscription to ${request.query.url} in workspace ${workspace.id}`);
    return { data: { subscription: subscriptionView(found), secret: found.secret } };
  });

  // `sandbox listen` pauses its subscription when it exits, so nothing keeps retrying into a closed port.
  app.post('/webhook-subscriptions/:id/active', {
    schema: { params: IdParams, body: SetActiveBodySchema, response: { 200: z.object({ data: WebhookSubscriptionSchema }), 400: errorResponses[400], 404: errorResponses[404] } },
    config: { summary: 'Pause or resume a subscription (sandbox listen pauses its own on exit)' },
  }, async (request) => {
    const workspace = requireWorkspace(ctx, request.body.workspaceId);
    const service = new WebhookSubscriptionService(ctx.store, ctx.clock, ctx.options.strictWebhookUrls, ctx.selfGuard);
    return { data: await service.update({ workspace } as Principal, request.params.id, { active: request.body.active }) };
  });
}

function requireDelivery(ctx: SandboxContext, id: string) {
  const delivery = ctx.webhooks.outbox.find(id);
  if (!delivery) throw notFound(`Delivery ${id}`);
  return delivery;
}

/** An existing subscription to the same URL is reused: its events are replaced and it is resumed. */
async function ensureSubscription(ctx: SandboxContext, workspaceId: string, body: z.infer<typeof CreateSubscriptionBodySchema>) {
  const workspace = requireWorkspace(ctx, workspaceId);
  const principal = { workspace } as Principal; // the service reads only the workspace
  const service = new WebhookSubscriptionService(ctx.store, ctx.clock, ctx.options.strictWebhookUrls, ctx.selfGuard);
  const existing = ctx.store.list<WebhookSubscriptionRecord>(COLLECTIONS.webhookSubscriptions, workspace.id).find((s) => s.url === body.url);
  if (!existing) {
    const { secret, ...subscription } = await service.create(principal, body);
    return { subscription, secret, created: true };
  }
  const subscription = await service.update(principal, existing.id, { events: body.events, active: true });
  return { subscription, secret: existing.secret, created: false };
}
