import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { unknownEventType, WEBHOOK_EVENT_TYPES } from '../../webhooks/catalogue.ts';
import { DELIVERY_STATUSES, DeliverySchema } from '../../webhooks/outbox.ts';
import { CreateSubscriptionBodySchema } from './requests.ts';
import { WebhookSubscriptionSchema } from './schemas.ts';

/**
 * Webhooks on the control plane (docs/webhooks.md): the delivery log and
 * replay (./control-deliveries.ts), the subscription the CLI's `listen` uses
 * (the CLI has no API key), and emitting catalogue events (./control-events.ts).
 */
const IdParams = z.object({ id: z.string() });
const SubscriptionWithSecretSchema = z.object({ subscription: WebhookSubscriptionSchema, secret: z.string() });
/**
 * A delivery as the control plane lists it: the outbox record plus the attempts it may have in
 * all (the subscription's max_retries + 1, as the stream's `delivery` event says), so the
 * dashboard reads "n/max" for every row, loaded or live.
 */
const ControlDeliverySchema = DeliverySchema.extend({
  maxAttempts: z.number().int().min(1).describe("the subscription's max_retries + 1 (1 once the subscription is deleted); replays are not counted against it"),
}).meta({ id: 'ControlDelivery' }); // three routes answer it: written once in the OpenAPI document

export const EmittedEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  workspaceId: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const WEBHOOK_CONTROL_ROUTES = defineRoutes({
  deliveries: {
    method: 'GET',
    path: '/deliveries',
    query: z.object({
      workspaceId: z.string().optional(),
      subscriptionId: z.string().optional(),
      eventType: z.string().optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(50),
    }),
    data: z.array(ControlDeliverySchema),
    errors: [400],
    summary: 'Webhook deliveries and their attempts, newest first',
  },
  delivery: {
    method: 'GET',
    path: '/deliveries/:id',
    params: IdParams,
    data: ControlDeliverySchema,
    errors: [404],
    summary: 'One webhook delivery and its attempts',
  },
  replayDelivery: {
    method: 'POST',
    path: '/deliveries/:id/replay',
    params: IdParams,
    data: ControlDeliverySchema,
    errors: [404, 409],
    summary: 'Send a delivery again now (same webhook-id; not counted against max_retries)',
  },
  ensureSubscription: {
    method: 'POST',
    path: '/webhook-subscriptions',
    body: CreateSubscriptionBodySchema.safeExtend({ workspaceId: z.string().min(1) }),
    data: SubscriptionWithSecretSchema.extend({ created: z.boolean() }),
    // 201 when created, 200 when an existing subscription to the URL was reused
    statuses: [201, 200],
    errors: [400, 404],
    summary: 'Create, or reuse by URL, a subscription and return its secret (sandbox listen)',
  },
  // Read-only: `sandbox listen --print-secret` must not change a subscription (as `stripe listen --print-secret`).
  findSubscription: {
    method: 'GET',
    path: '/webhook-subscriptions/by-url',
    query: z.object({ workspaceId: z.string().min(1), url: z.string().min(1) }),
    data: SubscriptionWithSecretSchema,
    errors: [404],
    summary: 'The subscription to a URL in a workspace, with its secret (read-only)',
  },
  // `sandbox listen` pauses its subscription when it exits, so nothing keeps retrying into a closed port.
  setSubscriptionActive: {
    method: 'POST',
    path: '/webhook-subscriptions/:id/active',
    params: IdParams,
    body: z.object({ workspaceId: z.string().min(1), active: z.boolean() }),
    data: WebhookSubscriptionSchema,
    errors: [400, 404],
    summary: 'Pause or resume a subscription (sandbox listen pauses its own on exit)',
  },
  eventTypes: { method: 'GET', path: '/events/types', data: z.array(z.string()), summary: 'The catalogue of webhook event types' },
  emitEvent: {
    method: 'POST',
    path: '/events',
    body: z.object({
      workspaceId: z.string().min(1),
      type: z.enum(WEBHOOK_EVENT_TYPES, { error: (issue) => unknownEventType(String(issue.input)) }),
      data: z.record(z.string(), z.unknown()).optional(),
      /** dotted paths whose values replace fields of the data (trigger --override) */
      override: z.record(z.string(), z.unknown()).optional(),
      /** dotted paths added to the data (trigger --add) */
      add: z.record(z.string(), z.unknown()).optional(),
    }),
    data: z.object({ event: EmittedEventSchema, deliveryIds: z.array(z.string()) }),
    statuses: [201],
    errors: [400, 404, 409],
    summary: 'Emit a catalogue event (data made from the workspace when absent)',
  },
});
