import { z } from 'zod';
import { WELL_FORMED_EVENT } from '../../webhooks/matching.ts';

/**
 * Webhook subscriptions (API description, "Webhook subscription"), snake_case
 * as documented. The description requires HTTPS delivery URLs on writes; the
 * record schema accepts http too so the sandbox fixtures can point at a
 * loopback address (http://127.0.0.1:9/webhooks, paused by default).
 */
export const WEBHOOK_EVENT_PATTERN = WELL_FORMED_EVENT;

export const WebhookSubscriptionSchema = z
  .object({
    id: z.string().describe('shape whsub_<uuid>'),
    workspace_id: z.string(),
    url: z.url({ protocol: /^https?$/ }),
    events: z.array(z.string().regex(WEBHOOK_EVENT_PATTERN, 'Expected an event name or a pattern such as booking.*')).min(1),
    active: z.boolean(),
    max_retries: z.number().int().min(0).max(10),
    headers: z.record(z.string().min(1), z.string()).nullable(),
    description: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    last_delivery_at: z.iso.datetime().nullable().describe('null until the first delivery attempt'),
    failure_count: z.number().int().min(0),
  })
  .meta({ id: 'WebhookSubscription' });
export type WebhookSubscription = z.infer<typeof WebhookSubscriptionSchema>;

/**
 * Stored subscription: adds the signing secret, never returned by the public
 * API, and the delivery health the platform keeps (src/webhooks/subscription-health.ts):
 * since when every attempt has failed, and why the sandbox disabled it.
 */
export const WebhookSubscriptionRecordSchema = WebhookSubscriptionSchema.extend({
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{43}=$/, 'Expected whsec_ followed by the base64 of 32 bytes')
    .meta({ 'x-sandbox-inferred': true }),
  failing_since: z.iso.datetime().nullable().optional(),
  disabled: z.object({ at: z.iso.datetime(), reason: z.string() }).nullable().optional(),
});
export type WebhookSubscriptionRecord = z.infer<typeof WebhookSubscriptionRecordSchema>;

/** The public view: everything but the secret. */
export function subscriptionView(record: WebhookSubscriptionRecord): WebhookSubscription {
  const { secret: _secret, failing_since: _failing, disabled: _disabled, ...view } = record;
  return view;
}

export const SubscriptionEnvelopeSchema = z.object({ data: WebhookSubscriptionSchema }).meta({ id: 'WebhookSubscriptionEnvelope' });
export const SubscriptionListSchema = z.object({ data: z.array(WebhookSubscriptionSchema) });
/** POST answers the subscription with its signing secret, shown this once (inferred: creation is "not shown"). */
export const CreatedSubscriptionEnvelopeSchema = z
  .object({ data: WebhookSubscriptionSchema.extend({ secret: WebhookSubscriptionRecordSchema.shape.secret }) })
  .meta({ 'x-sandbox-inferred': true });
export const SubscriptionIdParamsSchema = z.object({ id: z.string().describe('whsub_<uuid> or the bare uuid') });
