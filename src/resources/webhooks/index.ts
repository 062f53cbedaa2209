import { webhookDispatcherService } from '../../webhooks/service.ts';
import { WEBHOOK_DELIVERIES, WEBHOOK_SUBSCRIPTIONS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerWebhookRoutes } from './routes.ts';
import { WebhookSubscriptionService } from './service.ts';
import { subscriptionSource } from './subscription-source.ts';

export const webhooksResource: ResourceModule = {
  name: 'webhooks',
  collections: [WEBHOOK_SUBSCRIPTIONS, WEBHOOK_DELIVERIES],
  routes(app, ctx) {
    registerWebhookRoutes(app, new WebhookSubscriptionService(ctx.store, ctx.clock, ctx.options.strictWebhookUrls, ctx.selfGuard));
  },
  control: () => import('./control.ts').then((m) => m.registerWebhookControl),
  services: [webhookDispatcherService],
  webhookSubscriptions: subscriptionSource,
};
