import { defineCollection } from '../../storage/index.ts';
import { WEBHOOK_DELIVERIES } from '../../webhooks/outbox.ts';
import { newWebhookSecret } from '../../webhooks/signing.ts';
import { WebhookSubscriptionRecordSchema } from './schemas.ts';

/**
 * The webhooks area's stored collections (ResourceModule.collections): the
 * subscriptions, and the delivery outbox, declared by the dispatcher's outbox
 * next to its row schema (src/webhooks/outbox.ts).
 */
export const WEBHOOK_SUBSCRIPTIONS = defineCollection({
  name: 'webhookSubscriptions',
  schema: WebhookSubscriptionRecordSchema,
  idPrefix: 'whsub',
  // a created workspace signs with a secret of its own, never its template's
  copiedSecrets: { secret: newWebhookSecret },
});
export { WEBHOOK_DELIVERIES };
