import { z } from 'zod';
import { QuoteSchema } from '../bookings/schemas.ts';
import { DepartureSchema } from './schemas.ts';

/**
 * The pricing payload (API description, "POST /v1/bookings" body: adults,
 * children, infants, number of rooms, addon quantity, room category key,
 * occupancy per room, rooms requested, coupon code). The same fields price a
 * quote (POST /v1/departures/:id/price), a booking and a wizard session, so the
 * three always agree. `addons` names the extensions the add-on quantity is
 * made of; the description leaves that open (docs/bookings.md, "Pricing").
 */
const inferred = { 'x-sandbox-inferred': true } as const;
const count = (max: number) => z.number().int().min(0).max(max);

// an id: a quote, a booking and a wizard session take it, and the OpenAPI document writes it once
export const AddonSelectionSchema = z
  .object({
    extensionId: z.string().describe('shape ext_<uuid>; see GET /v1/products/:id/extensions'),
    quantity: z.number().int().min(1).max(500),
  })
  .meta({ id: 'AddonSelection' });
export type AddonSelection = z.infer<typeof AddonSelectionSchema>;

/**
 * Adults priced when a request names a departure and no adults count: the API description lists
 * the count among the create body's fields and requires none of them, so the sandbox assumes one
 * adult (a booking needs one), with the warning ASSUMED_DEFAULT, refused under --strict
 * (docs/bookings.md, "Pricing"; assumedAdultsWarnings in ../bookings/warnings.ts).
 */
export const DEFAULT_ADULTS = 1;

export const pricingFields = {
  adults: count(500)
    .optional()
    .describe(
      `adults count, default ${DEFAULT_ADULTS} (assumed with the warning ASSUMED_DEFAULT; refused under --strict); adults and children take a seat each`,
    )
    .meta(inferred),
  children: count(500).optional().describe('children count, default 0'),
  infants: count(500).optional().describe('infants count, default 0; infants travel on a lap and take no seat'),
  rooms: count(200).optional().describe('number of rooms priced and held'),
  roomCategory: z.string().min(1).max(40).nullable().optional().describe('room category key: single, double, twin, triple (as offered by the product)'),
  occupancyPerRoom: z.number().int().min(1).max(10).nullable().optional().describe('people per room; at most the category occupancy'),
  roomsRequested: z.number().int().min(1).max(200).nullable().optional().describe('rooms the customer asked for'),
  addonQuantity: count(5000).optional().describe('total add-on units; must equal the sum of addons[].quantity when both are sent'),
  addons: z.array(AddonSelectionSchema).max(50).optional().describe('the add-ons (extensions) and their quantities'),
  couponCode: z.string().trim().min(1).max(64).nullable().optional().describe('coupon or promotion code'),
};

export const PriceRequestBodySchema = z.object(pricingFields).meta(inferred);
export type PriceRequestBody = z.infer<typeof PriceRequestBodySchema>;
/** What the Pricer prices: the adults count known (DEFAULT_ADULTS when the request left it out). */
export type PricingRequest = {
  adults: number;
  children?: number | undefined;
  infants?: number | undefined;
  rooms?: number | undefined;
  roomCategory?: string | null | undefined;
  occupancyPerRoom?: number | null | undefined;
  roomsRequested?: number | null | undefined;
  addonQuantity?: number | undefined;
  addons?: AddonSelection[] | undefined;
  couponCode?: string | null | undefined;
};

export const DepartureIdParamsSchema = z.object({ id: z.string().describe('departure id, dept_<uuid>') });
export const DepartureResponseSchema = z.object({ data: DepartureSchema });
export const QuoteResponseSchema = z.object({ data: QuoteSchema });
