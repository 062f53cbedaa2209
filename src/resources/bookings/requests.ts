import { z } from 'zod';
import { bookingListEnvelopeSchema, paginationQuery } from '../../core/pagination.ts';
import { AddonSelectionSchema, DEFAULT_ADULTS, pricingFields } from '../departures/requests.ts';
import { BOOKING_STATUSES, BookingItemSchema, BookingSchema, FULFILLMENT_STATUSES, PAYMENT_STATUSES } from './schemas.ts';

/**
 * Request and response shapes of the booking endpoints (API description,
 * "Bookings"). The create body lists its fields "in order" without names; the
 * names here match the Booking record and are documented in docs/bookings.md.
 */
const inferred = { 'x-sandbox-inferred': true } as const;
const text = (max: number) => z.string().max(max);
const objectField = () => z.record(z.string(), z.unknown());
/** A status outside the inferred lists is well-formed when it is one word: stored with a warning. */
const statusWord = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(40)
    .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a status is one word: letters, digits, _ or -');

/** Booking fields that are not pricing inputs (also accepted when a wizard session completes). */
export const bookingDetailFields = {
  // "custom booking code or reference (string)": the character set is the sandbox's guess, so another code is stored with a warning
  code: z
    .string()
    .trim()
    .min(1)
    .max(40)
    .optional()
    .describe('custom booking code or reference; generated when absent (letters, digits, dot, dash, underscore; another code is stored with a warning)'),
  status: z.enum(BOOKING_STATUSES).optional().describe('initial status, default pending'),
  paymentStatus: statusWord()
    .optional()
    .describe(`initial payment status, default unpaid; known: ${PAYMENT_STATUSES.join(', ')} (others are stored with a warning)`),
  fulfillmentStatus: statusWord()
    .optional()
    .describe(`initial fulfillment status, default unfulfilled; known: ${FULFILLMENT_STATUSES.join(', ')} (others are stored with a warning)`),
  salesChannel: z.string().trim().min(1).max(40).optional().describe('sales channel, default api (partner for organization keys)'),
  sourceSystem: z.string().trim().min(1).max(60).optional().describe('source system, default api (partner_api for organization keys)'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency: an ISO 4217 code such as EUR')
    .optional()
    .describe("ISO currency code; must be the departure's currency"),
  publicNotes: text(5000).nullable().optional().describe('public notes, shown to the customer'),
  notes: text(5000).nullable().optional().describe('internal notes'),
  attributes: objectField().optional().describe('workspace-specific context; pricingSnapshot is merged in'),
  metadata: objectField().optional().describe('arbitrary JSON, returned as sent'),
  // "preferred language (string)": the tag shape is the sandbox's guess, so another one is stored with a warning
  language: z.string().trim().min(2).max(35).optional().describe('preferred language, a tag such as en or en-GB (another shape is stored with a warning)'),
  customerId: z.string().optional().describe('the customer, an existing person (ppl_<uuid>)'),
};

export const CreateBookingBodySchema = z
  .object({
    code: bookingDetailFields.code,
    status: bookingDetailFields.status,
    paymentStatus: bookingDetailFields.paymentStatus,
    fulfillmentStatus: bookingDetailFields.fulfillmentStatus,
    salesChannel: bookingDetailFields.salesChannel,
    sourceSystem: bookingDetailFields.sourceSystem,
    currency: bookingDetailFields.currency.describe(
      "ISO currency code; must be the departure's currency (without departureId: default the workspace's, and the first departure item must match it)",
    ),
    adults: pricingFields.adults
      .describe(
        `adults count; with departureId default ${DEFAULT_ADULTS} (assumed with the warning ASSUMED_DEFAULT; refused under --strict), without it 0; adults and children take a seat each`,
      )
      .meta(inferred),
    children: pricingFields.children,
    infants: pricingFields.infants,
    rooms: pricingFields.rooms,
    publicNotes: bookingDetailFields.publicNotes,
    notes: bookingDetailFields.notes,
    attributes: bookingDetailFields.attributes,
    metadata: bookingDetailFields.metadata,
    language: bookingDetailFields.language,
    addonQuantity: pricingFields.addonQuantity,
    roomCategory: pricingFields.roomCategory,
    occupancyPerRoom: pricingFields.occupancyPerRoom,
    roomsRequested: pricingFields.roomsRequested,
    couponCode: pricingFields.couponCode,
    departureId: z
      .string()
      .optional()
      .describe('the departure booked, dept_<uuid>; when absent the booking starts empty and its first departure item names it')
      .meta(inferred),
    customerId: bookingDetailFields.customerId.meta(inferred),
    addons: pricingFields.addons.meta(inferred),
  })
  .meta(inferred);
export type CreateBookingBody = z.infer<typeof CreateBookingBodySchema>;

export const BOOKING_SORT_FIELDS = ['createdAt', 'updatedAt'] as const;

export const ListBookingsQuerySchema = z.object({
  ...paginationQuery(20),
  status: z.enum(BOOKING_STATUSES).optional(),
  q: z.string().trim().max(200).optional().describe('search text over code and customer name/e-mail'),
  // "response locale, for example en, ro": not used (bookings carry no translated text), so another shape is answered with a warning
  locale: z.string().trim().min(1).max(35).optional().describe('response locale, for example en, ro (another shape is answered with a warning)'),
  sort: z.string().optional().describe('createdAt or updatedAt (a leading - means descending)'),
  dir: z.enum(['asc', 'desc']).optional().describe('asc or desc; wins over a leading - in sort; default desc'),
});
/** The locale shape the sandbox infers (routes.ts: INFERRED_LIMIT outside it). */
export const LIST_LOCALE = /^[a-z]{2}(-[A-Za-z]{2})?$/;
export type ListBookingsQuery = z.infer<typeof ListBookingsQuerySchema>;

// "{status?, notes?}" (API description): an empty PATCH changes nothing, accepted with a
// warning (warnings.ts, patchBookingWarnings) and refused under --strict
export const PatchBookingBodySchema = z.object({
  status: z.enum(BOOKING_STATUSES).optional(),
  notes: text(5000).nullable().optional(),
});

export const PatchBookingResponseSchema = z.object({ id: z.string(), status: z.enum(BOOKING_STATUSES), notes: z.string().nullable() });

export const PassengerInputSchema = z.object({
  personId: z.string().describe('existing person (uuid or ppl_<uuid>)'),
  // "role (string), for example lead, guest": another shape is stored with a warning
  role: z.string().trim().min(1).max(40).optional().describe('lead, guest, ...; default guest (not a lower-case word: stored with a warning)'),
  roomAllocation: z.string().trim().min(1).max(60).nullable().optional(),
  extras: objectField().optional(),
});
// no minimum in the description: an empty list changes nothing, with a warning; 100 bounds the work
export const PassengersBodySchema = z.object({ passengers: z.array(PassengerInputSchema).max(100) });
export type PassengerInput = z.infer<typeof PassengerInputSchema>;
export const PassengersResponseSchema = z.object({
  passengers: z.array(z.object({ id: z.string(), person_id: z.uuid().describe('the person (bare UUID, as the description types it)'), role: z.string() })),
});

export const ItemInputSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('departure'),
    departureId: z.string().optional().describe("must be the booking's departure when sent; required while the booking has none, and the first one names it"),
    passengerType: z.enum(['adult', 'child', 'infant']),
    quantity: z.number().int().min(1).max(500),
  }),
  z.object({ kind: z.literal('extension'), extensionId: AddonSelectionSchema.shape.extensionId, quantity: z.number().int().min(1).max(500) }),
]);
export type ItemInput = z.infer<typeof ItemInputSchema>;
export const ItemsBodySchema = z.object({ items: z.array(ItemInputSchema).min(1).max(50) }).meta(inferred);

/** Passengers in booking responses: the person reference is spelled person_id ("Passenger"). */
export const PassengerViewSchema = z.object({
  id: z.string(),
  person_id: z.uuid().describe('the person (bare UUID, as the description types it)'),
  role: z.string(),
  roomAllocation: z.string().nullable(),
  extras: z.record(z.string(), z.unknown()),
});
export const BookingViewSchema = BookingSchema.extend({
  passengers: z.array(PassengerViewSchema),
  items: z.array(BookingItemSchema),
}).meta(inferred);
export type BookingView = z.infer<typeof BookingViewSchema>;

export const BookingResponseSchema = z.object({ data: BookingViewSchema }).meta({ id: 'BookingResponse' });
export const BookingListSchema = bookingListEnvelopeSchema(BookingSchema);
export const BookingIdParamsSchema = z.object({ id: z.string().describe('booking id, book_<uuid>') });
