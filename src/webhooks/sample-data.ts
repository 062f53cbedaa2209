import { randomUUID } from 'node:crypto';
import { COLLECTIONS } from '../core/collections.ts';
import type { Store } from '../storage/types.ts';
import type { WebhookEventType } from './catalogue.ts';

/**
 * Realistic `data` for an event triggered from the control plane without data
 * (POST /__sandbox/events): the workspace's most recent record of the right
 * kind, changed the way the event says (a cancelled booking is cancelled, a
 * published product is active). Payments are not stored records, so a payment
 * is built from a booking's totals. Returns null when the workspace has no
 * record to build from.
 */
type Data = Record<string, unknown>;

const SOURCE: Record<string, string> = {
  booking: COLLECTIONS.bookings,
  payment: COLLECTIONS.bookings,
  product: COLLECTIONS.products,
  customer: COLLECTIONS.people,
  gallery: COLLECTIONS.galleryFiles,
};

export function sampleEventData(store: Store, workspaceId: string, type: WebhookEventType, nowIso: string): Data | null {
  const family = type.split('.')[0]!;
  const rows = store.list<{ id: string } & Data>(SOURCE[family]!, workspaceId);
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
