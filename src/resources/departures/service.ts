import type { Principal } from '../../core/auth.ts';
import type { Quote } from '../bookings/schemas.ts';
import type { Pricer } from './pricing.ts';
import { DEFAULT_ADULTS, type PriceRequestBody } from './requests.ts';
import type { Departure } from './schemas.ts';

/** Departures and quotes (API description, "Departures"); the arithmetic lives in the Pricer. */
export class DepartureService {
  constructor(private readonly pricer: Pricer) {}

  get(principal: Principal, rawId: string): Departure {
    return this.pricer.find(principal, rawId).departure;
  }

  /**
   * A quote for a party on a departure: the same checks a booking makes
   * (bookable departure, enough seats, valid selection), without holding seats.
   */
  price(principal: Principal, rawId: string, input: PriceRequestBody): Quote {
    const target = this.pricer.find(principal, rawId);
    this.pricer.assertBookable(target);
    const priced = this.pricer.price(principal, target, { ...input, adults: input.adults ?? DEFAULT_ADULTS });
    this.pricer.assertSeats(target.departure, priced.seats);
    return priced.quote;
  }
}
