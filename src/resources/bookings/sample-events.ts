import { randomUUID } from 'node:crypto';
import { latestRecord, type EventData, type SampleEvents } from '../../webhooks/sample-data.ts';
import { BOOKINGS } from './collections.ts';

/**
 * The bookings area's sample event data (src/webhooks/sample-data.ts): booking
 * events from the workspace's latest booking; payments are not stored records,
 * so a payment is built from that booking's totals.
 */
export const BOOKING_SAMPLE_EVENTS: SampleEvents = {
  booking: (store, workspaceId, type, nowIso) => {
    const booking = latestRecord(BOOKINGS, store, workspaceId);
    if (!booking) return null;
    if (type === 'booking.cancelled') return { ...booking, status: 'cancelled', updatedAt: nowIso };
    if (type === 'booking.updated') return { ...booking, updatedAt: nowIso };
    return booking;
  },
  payment: (store, workspaceId, type, nowIso) => {
    const booking = latestRecord(BOOKINGS, store, workspaceId);
    return booking && paymentFrom(booking, type.slice('payment.'.length), nowIso);
  },
};

function paymentFrom(booking: EventData, status: string, nowIso: string): EventData {
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
