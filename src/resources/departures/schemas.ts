import { z } from 'zod';

/**
 * Departures (API description, "Departure, pricing option, extension"): record
 * fields are "not shown"; designed by the sandbox and marked inferred. A
 * departure is one dated run of a product with a seat capacity; bookings take
 * seats from it (adults and children take a seat, infants travel on a lap).
 */
export const DEPARTURE_STATUSES = ['scheduled', 'guaranteed', 'sold_out', 'cancelled', 'departed'] as const;

export const DepartureSchema = z
  .object({
    id: z.string().describe('shape dept_<uuid>'),
    productId: z.string().describe('shape prod_<uuid>'),
    startDate: z.iso.date(),
    endDate: z.iso.date(),
    status: z.enum(DEPARTURE_STATUSES),
    capacity: z.number().int().min(1),
    seatsLeft: z.number().int().min(0),
    currency: z.string().regex(/^[A-Z]{3}$/),
    guideName: z.string().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .superRefine((d, ctx) => {
    if (d.endDate < d.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate is before startDate' });
    if (d.seatsLeft > d.capacity) ctx.addIssue({ code: 'custom', path: ['seatsLeft'], message: 'seatsLeft exceeds capacity' });
  })
  .meta({ 'x-sandbox-inferred': true })
  .meta({ id: 'Departure' });
export type Departure = z.infer<typeof DepartureSchema>;

/** Seats a party takes on a departure: infants travel on a lap and take none. */
export const seatsRequired = (party: { adults: number; children: number; infants?: number }): number => party.adults + party.children;
