import { OrderedIndex, type Store } from '../../storage/index.ts';
import { BOOKINGS } from './collections.ts';
import type { Booking } from './schemas.ts';

/** What `GET /v1/bookings` sorts and filters on, one per booking (so a page costs the page, not the workspace). */
export interface BookingEntry {
  readonly id: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly status: string;
  readonly productId: string | null;
}

/** The booking list index of a store: by createdAt and updatedAt, each also per status. */
export const bookingListIndex = (store: Store) =>
  OrderedIndex.of<Booking, BookingEntry>(store, BOOKINGS.name, 'list', {
    entry: (b) => ({ id: b.id, createdAt: b.createdAt, updatedAt: b.updatedAt, status: b.status, productId: b.productId }),
    orders: { createdAt: (e) => e.createdAt, updatedAt: (e) => e.updatedAt },
    bucket: (e) => e.status,
  });
