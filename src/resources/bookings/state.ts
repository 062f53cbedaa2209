import { apiError } from '../../core/errors.ts';
import type { Booking } from './schemas.ts';

/**
 * The booking state machine. The API description lists the statuses and says
 * the transitions, including moves made through PATCH, are "not shown"; the
 * sandbox's design (docs/bookings.md, "Status moves"):
 *
 *   pending   -> confirmed | cancelled
 *   confirmed -> completed | cancelled
 *   cancelled, completed: final
 *
 * Sending the current status again is not a move and changes nothing.
 */
type Status = Booking['status'];

export const TRANSITIONS: Readonly<Record<Status, readonly Status[]>> = {
  pending: ['confirmed', 'cancelled'],
  confirmed: ['completed', 'cancelled'],
  cancelled: [],
  completed: [],
};

/** Statuses in which a booking holds seats and can still change (passengers, items). */
export const OPEN_STATUSES: readonly Status[] = ['pending', 'confirmed'];

export function assertTransition(from: Status, to: Status): void {
  const allowed = TRANSITIONS[from];
  if (allowed.includes(to)) return;
  const why = allowed.length === 0 ? `${from} is a final status` : `from ${from} a booking can move to ${allowed.join(' or ')}`;
  throw apiError(409, 'INVALID_TRANSITION', `Cannot move booking from ${from} to ${to}: ${why}`, { from, to, allowed: [...allowed] });
}

export function assertOpen(booking: Booking, what: string): void {
  if (!OPEN_STATUSES.includes(booking.status)) {
    throw apiError(409, 'BOOKING_CLOSED', `Cannot ${what}: booking ${booking.id} is ${booking.status}`);
  }
}
