import { suggest } from '../core/suggest.ts';

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

export const isCatalogueEvent = (type: string): type is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);

/**
 * The one line for a type outside the catalogue, with the closest one when it
 * looks like a typo: `sandbox trigger` says it before asking the
 * sandbox, and the control plane's 400 says the same.
 */
export const unknownEventType = (type: string): string =>
  `unknown event type "${type.length <= 64 ? type : `${type.slice(0, 61)}...`}"${type.length <= 64 ? suggest(type, WEBHOOK_EVENT_TYPES) : ''}; the catalogue: ${WEBHOOK_EVENT_TYPES.join(', ')}`;
