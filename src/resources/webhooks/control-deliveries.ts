import type { z } from 'zod';
import { notFound } from '../../core/errors.ts';
import type { Principal } from '../../core/auth.ts';
import type { SandboxContext } from '../../context.ts';
import type { CreateSubscriptionBodySchema } from './requests.ts';
import { subscriptionView } from './schemas.ts';
import { WebhookSubscriptionService } from './service.ts';
import type { ZodApp } from '../types.ts';
import { serve } from '../../http/route-table/serve.ts';
import { requireWorkspace } from '../../core/workspace-lookup.ts';
import { WEBHOOK_CONTROL_ROUTES } from './control-contract.ts';
import { WEBHOOK_SUBSCRIPTIONS } from './collections.ts';
import { deliveryView, type Delivery } from '../../webhooks/outbox.ts';
import { maxAttempts } from '../../webhooks/retry-policy.ts';

/**
 * Webhook deliveries on the control plane (docs/webhooks.md): the attempt log,
 * replay, and the subscription the CLI's `listen` command uses (the CLI has no
 * API key, so it subscribes here rather than through /v1). The routes' shapes
 * are in ./control-contract.ts.
 */
export function registerDeliveryControl(app: ZodApp, ctx: SandboxContext): void {
  const { deliveries, delivery, replayDelivery, ensureSubscription: ensure, findSubscription, setSubscriptionActive } = WEBHOOK_CONTROL_ROUTES;
  serve(app, deliveries, async (request) => {
    const { limit, ...filter } = request.query;
    return ctx.webhooks.outbox.list(filter, limit).map((d) => withMaxAttempts(ctx, d));
  });

  serve(app, delivery, async (request) => withMaxAttempts(ctx, deliveryView(requireDelivery(ctx, request.params.id))));

  serve(app, replayDelivery, async (request) => {
    const replayed = await ctx.webhooks.replay(requireDelivery(ctx, request.params.id));
    return withMaxAttempts(ctx, deliveryView(replayed ?? requireDelivery(ctx, request.params.id)));
  });

  serve(app, ensure, async (request, reply) => {
    const { workspaceId, ...body } = request.body;
    const result = await ensureSubscription(ctx, workspaceId, body);
    if (!result.created) reply.code(200);
    return result;
  });

  // Read-only: `sandbox listen --print-secret` must not change a subscription (as `stripe listen --print-secret`).
  serve(app, findSubscription, async (request) => {
    const workspace = requireWorkspace(ctx, request.query.workspaceId);
    const found = WEBHOOK_SUBSCRIPTIONS.in(ctx.store)
      .list(workspace.id)
      .find((s) => s.url === request.query.url);
    if (!found) throw notFound(`Subscription to ${request.query.url} in workspace ${workspace.id}`);
    return { subscription: subscriptionView(found), secret: found.secret };
  });

  // `sandbox listen` pauses its subscription when it exits, so nothing keeps retrying into a closed port;
  // what was still pending is cancelled before the answer.
  serve(app, setSubscriptionActive, async (request) => {
    const workspace = requireWorkspace(ctx, request.body.workspaceId);
    const service = new WebhookSubscriptionService(ctx.store, ctx.clock, ctx.options.strictWebhookUrls, ctx.selfGuard);
    const updated = await service.update({ workspace } as Principal, request.params.id, { active: request.body.active });
    // its pending deliveries are cancelled now, as docs/webhooks.md says of listen's stop
    if (!updated.active) await ctx.webhooks.cancelPendingOf(workspace.id, updated.id);
    return updated;
  });
}

/** The attempts the delivery may get in all, as the stream's `delivery` event reports it (a duplicate is sent once). */
function withMaxAttempts(ctx: SandboxContext, d: Delivery) {
  if (d.fault?.duplicateOf) return { ...d, maxAttempts: 1 };
  return { ...d, maxAttempts: maxAttempts(WEBHOOK_SUBSCRIPTIONS.in(ctx.store).get(d.workspaceId, d.subscriptionId)) };
}

function requireDelivery(ctx: SandboxContext, id: string) {
  const delivery = ctx.webhooks.outbox.findRow(id);
  if (!delivery) throw notFound(`Delivery ${id}`);
  return delivery;
}

/** An existing subscription to the same URL is reused: its events are replaced and it is resumed. */
async function ensureSubscription(ctx: SandboxContext, workspaceId: string, body: z.infer<typeof CreateSubscriptionBodySchema>) {
  const workspace = requireWorkspace(ctx, workspaceId);
  const principal = { workspace } as Principal; // the service reads only the workspace
  const service = new WebhookSubscriptionService(ctx.store, ctx.clock, ctx.options.strictWebhookUrls, ctx.selfGuard);
  const existing = WEBHOOK_SUBSCRIPTIONS.in(ctx.store)
    .list(workspace.id)
    .find((s) => s.url === body.url);
  if (!existing) {
    const { secret, ...subscription } = await service.create(principal, body);
    return { subscription, secret, created: true };
  }
  const subscription = await service.update(principal, existing.id, { events: body.events, active: true });
  return { subscription, secret: existing.secret, created: false };
}
