/**
 * The catalogue of webhook event types (API description, "Events": booking
 * created, updated, cancelled; payment succeeded, failed, refunded; product
 * created, updated, published; customer created, updated; gallery file
 * deleted). Exact names beyond `booking.created` and `gallery.file.deleted` are
 * "not shown"; the sandbox names the rest in the same dotted style
 * (docs/webhooks.md). Only these types are delivered: the catalogue is the
 * contract a subscription's `events` are checked against.
 */
export const WEBHOOK_EVENT_TYPES = [
  'booking.created',
  'booking.updated',
  'booking.cancelled',
  'payment.succeeded',
  'payment.failed',
  'payment.refunded',
  'product.created',
  'product.updated',
  'product.published',
  'customer.created',
  'customer.updated',
  'gallery.file.deleted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isCatalogueEvent = (type: string): type is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
