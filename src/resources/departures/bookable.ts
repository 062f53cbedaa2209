import type { Store } from '../../storage/index.ts';
import { PRODUCTS } from '../products/collections.ts';
import { DEPARTURES } from './collections.ts';
import type { Departure } from './schemas.ts';

/**
 * The first departure of a workspace that a booking of `seats` adults can take today, in stored
 * order (so the fixtures' seed always offers the same one): its product active, not cancelled,
 * departed or sold out, with the seats (the checks of Pricer.assertBookable and assertSeats). The
 * banner offers it for a first booking, and GET /__sandbox/workspaces/:id/departures/bookable
 * answers it (./control.ts), where the README's first booking reads it: once bookings fill it, the
 * next one with room. `today` is the sandbox day, YYYY-MM-DD.
 */
export function firstBookableDeparture(store: Store, workspaceId: string, today: string, seats = 2): { departure: Departure; productTitle: string } | null {
  const products = PRODUCTS.in(store);
  for (const departure of DEPARTURES.in(store).list(workspaceId)) {
    if (departure.status === 'cancelled' || departure.status === 'departed' || departure.status === 'sold_out') continue;
    if (departure.startDate < today || departure.seatsLeft < seats) continue;
    const product = products.get(workspaceId, departure.productId);
    if (product?.status === 'active') return { departure, productTitle: product.title };
  }
  return null;
}
