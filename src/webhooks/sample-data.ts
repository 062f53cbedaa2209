import { randomUUID } from 'node:crypto';
import type { Collection, StoredRow } from '../storage/collection.ts';
import type { Store } from '../storage/types.ts';
import type { WebhookEventType } from './catalogue.ts';
import { BOOKINGS } from '../resources/bookings/collections.ts';
import { GALLERY_FILES } from '../resources/gallery/collections.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import { PRODUCTS } from '../resources/products/collections.ts';

/**
 * Realistic `data` for an event triggered from the control plane without data
 * (POST /__sandbox/events): the workspace's most recent record of the right
 * kind, changed the way the event says (a cancelled booking is cancelled, a
 * published product is active). Payments are not stored records, so a payment
 * is built from a booking's totals. Returns null when the workspace has no
 * record to build from.
 */
type Data = Record<string, unknown>;

const SOURCE: Record<string, Collection<StoredRow>> = {
  booking: BOOKINGS,
  payment: BOOKINGS,
  product: PRODUCTS,
  customer: PEOPLE,
  gallery: GALLERY_FILES,
};

export function sampleEventData(store: Store, workspaceId: string, type: WebhookEventType, nowIso: string): Data | null {
  const family = type.split('.')[0]!;
  const rows = SOURCE[family]!.in(store).list(workspaceId);
  const latest = rows[rows.length - 1];
  if (!latest) return null;
  const record: Data = structuredClone(latest);
  switch (type) {
    case 'booking.cancelled':
      return { ...record, status: 'cancelled', updatedAt: nowIso };
    case 'booking.updated':
    case 'product.updated':
    case 'customer.updated':
      return { ...record, updatedAt: nowIso };
    case 'product.published':
      return { ...record, status: 'active', updatedAt: nowIso };
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.refunded':
      return paymentFrom(record, type.slice('payment.'.length), nowIso);
    case 'gallery.file.deleted':
      return { ...record, deletedAt: nowIso };
    default:
      return record;
  }
}

function paymentFrom(booking: Data, status: string, nowIso: string): Data {
  const totals = (booking.totals ?? {}) as { total?: number };
  return {
    id: `pay_${randomUUID()}`,
    bookingId: booking.id,
    bookingCode: booking.code ?? null,
    amount: totals.total ?? 0,
    currency: booking.currency ?? 'EUR',
    status,
    method: 'card',
    failureReason: status === 'failed' ? 'card_declined' : null,
    createdAt: nowIso,
  };
}
