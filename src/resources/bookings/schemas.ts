import { z } from 'zod';

/**
 * Bookings, passengers and booking items (API description, "Booking",
 * "Passenger"). Documented booking fields: id, code, status, notes, attributes
 * (always holding `pricingSnapshot`), metadata and the computed totals. The
 * other fields carry the create-body values in the order the description lists
 * them; their names are "not shown" and marked inferred.
 *
 * Money is integer minor units. Taxes are added on top of the discounted
 * subtotal: taxes = round((subtotal - discounts) * taxRateBps / 10000),
 * total = subtotal - discounts + taxes.
 */
const inferred = { 'x-sandbox-inferred': true } as const;
const money = () => z.number().int().min(0).describe('integer minor units (cents)');
const count = () => z.number().int().min(0);

export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled', 'completed'] as const;
export const PAYMENT_STATUSES = ['unpaid', 'partially_paid', 'paid', 'refunded'] as const;
export const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const;

export const QuoteLineSchema = z
  .object({
    code: z.string().min(1).describe('adult, child, infant, room:<code>, ext:<code>'),
    description: z.string(),
    quantity: z.number().int().min(1),
    unitAmount: money(),
    amount: money().describe('quantity * unitAmount'),
  })
  .meta({ id: 'QuoteLine' });
export type QuoteLine = z.infer<typeof QuoteLineSchema>;

export const QuoteSchema = z
  .object({
    currency: z.string().regex(/^[A-Z]{3}$/),
    lines: z.array(QuoteLineSchema),
    subtotal: money(),
    taxes: money(),
    discounts: money(),
    total: money(),
    couponCode: z.string().nullable(),
    quotedAt: z.iso.datetime(),
  })
  .superRefine((q, ctx) => {
    q.lines.forEach((line, i) => {
      if (line.amount !== line.quantity * line.unitAmount) {
        ctx.addIssue({ code: 'custom', path: ['lines', i, 'amount'], message: 'amount must be quantity * unitAmount' });
      }
    });
    const sum = q.lines.reduce((acc, line) => acc + line.amount, 0);
    if (sum !== q.subtotal) ctx.addIssue({ code: 'custom', path: ['subtotal'], message: 'subtotal must be the sum of the lines' });
    if (q.discounts > q.subtotal) ctx.addIssue({ code: 'custom', path: ['discounts'], message: 'discounts exceed subtotal' });
    if (q.total !== q.subtotal - q.discounts + q.taxes) {
      ctx.addIssue({ code: 'custom', path: ['total'], message: 'total must be subtotal - discounts + taxes' });
    }
  })
  .meta(inferred)
  .meta({ id: 'Quote' });
export type Quote = z.infer<typeof QuoteSchema>;

export const BookingTotalsSchema = z
  .object({
    subtotal: money(),
    taxes: money(),
    discounts: money(),
    total: money(),
  })
  .meta({ id: 'BookingTotals' });
export type BookingTotals = z.infer<typeof BookingTotalsSchema>;

export const BookingSchema = z
  .object({
    id: z.string().describe('shape book_<uuid>'),
    code: z.string().min(1),
    status: z.enum(BOOKING_STATUSES),
    paymentStatus: z
      .string()
      .describe(`known: ${PAYMENT_STATUSES.join(', ')}; another value is stored as sent, with a warning`)
      .meta(inferred),
    fulfillmentStatus: z
      .string()
      .describe(`known: ${FULFILLMENT_STATUSES.join(', ')}; another value is stored as sent, with a warning`)
      .meta(inferred),
    salesChannel: z.string().meta(inferred),
    sourceSystem: z.string().meta(inferred),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .meta(inferred),
    adults: count().meta(inferred),
    children: count().meta(inferred),
    infants: count().meta(inferred),
    rooms: count().meta(inferred),
    publicNotes: z.string().nullable().meta(inferred),
    notes: z.string().nullable(),
    attributes: z.looseObject({
      // any JSON: a client's pricingSnapshot is stored exactly as sent ("sending a pricingSnapshot key replaces it")
      pricingSnapshot: z
        .unknown()
        .describe(
          'the quote used to price the booking (the shape POST /v1/departures/{id}/price answers), or exactly what the client sent as attributes.pricingSnapshot',
        ),
    }),
    metadata: z.record(z.string(), z.unknown()),
    language: z.string().min(2).meta(inferred),
    addonQuantity: count().meta(inferred),
    roomCategory: z.string().nullable().meta(inferred),
    occupancyPerRoom: z.number().int().min(1).nullable().meta(inferred),
    roomsRequested: z.number().int().min(1).nullable().meta(inferred),
    couponCode: z.string().nullable().meta(inferred),
    productId: z.string().nullable().describe('shape prod_<uuid>').meta(inferred),
    departureId: z.string().nullable().describe('shape dept_<uuid>').meta(inferred),
    customerId: z.string().nullable().describe('shape ppl_<uuid>').meta(inferred),
    totals: BookingTotalsSchema,
    createdAt: z.iso.datetime().meta(inferred),
    updatedAt: z.iso.datetime().meta(inferred),
  })
  .meta({ id: 'Booking' });
export type Booking = z.infer<typeof BookingSchema>;

/** Stored passenger; responses spell the person reference `person_id`. */
export const PassengerSchema = z.object({
  id: z.string().describe('shape psg_<uuid>'),
  bookingId: z.string().describe('shape book_<uuid>').meta(inferred),
  personId: z.string().describe('shape ppl_<uuid>'),
  role: z.string().min(1).describe('for example lead, guest'),
  roomAllocation: z.string().nullable(),
  extras: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime().meta(inferred),
  updatedAt: z.iso.datetime().meta(inferred),
});
export type Passenger = z.infer<typeof PassengerSchema>;

export const BookingItemSchema = z
  .object({
    id: z.string().describe('shape bkg_<uuid>'),
    bookingId: z.string().describe('shape book_<uuid>'),
    kind: z.enum(['departure', 'extension']),
    refId: z.string().describe('dept_<uuid> for departure items, ext_<uuid> for extension items'),
    description: z.string(),
    quantity: z.number().int().min(1),
    unitAmount: money(),
    amount: money(),
    createdAt: z.iso.datetime(),
  })
  .refine((item) => item.amount === item.quantity * item.unitAmount, {
    path: ['amount'],
    message: 'amount must be quantity * unitAmount',
  })
  .meta(inferred)
  .meta({ id: 'BookingItem' });
export type BookingItem = z.infer<typeof BookingItemSchema>;
