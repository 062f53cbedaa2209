import { z } from 'zod';
import { AddonSelectionSchema, pricingFields } from '../departures/requests.ts';
import { bookingDetailFields } from './requests.ts';
import { QuoteSchema } from './schemas.ts';

/**
 * POST /v1/bookings/wizard/session (API description, "Bookings": it "exists";
 * request and response "not shown"). One endpoint drives the whole draft:
 *   - no sessionId: start a session (201);
 *   - sessionId, action save (default): change the selection (200);
 *   - sessionId, action complete: turn the draft into a booking (201).
 * Designed in docs/bookings.md ("Booking wizard sessions").
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const WIZARD_STATUSES = ['open', 'completed'] as const;
/** A session lapses this long after its last change (sandbox clock). */
export const WIZARD_TTL_MS = 60 * 60 * 1000;

export const WizardSessionSchema = z
  .object({
    id: z.string().describe('shape ws_<uuid>'),
    status: z.enum(WIZARD_STATUSES),
    productId: z.string().nullable(),
    departureId: z.string().nullable(),
    customerId: z.string().nullable(),
    adults: z.number().int().min(0),
    children: z.number().int().min(0),
    infants: z.number().int().min(0),
    rooms: z.number().int().min(0).nullable(),
    roomCategory: z.string().nullable(),
    occupancyPerRoom: z.number().int().min(1).nullable(),
    roomsRequested: z.number().int().min(1).nullable(),
    addons: z.array(AddonSelectionSchema),
    couponCode: z.string().nullable(),
    quote: QuoteSchema.nullable().describe('the current price, once a departure is chosen'),
    bookingId: z.string().nullable().describe('set when the session completed'),
    expiresAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta(inferred);
export type WizardSession = z.infer<typeof WizardSessionSchema>;

const { adults, children, infants, rooms, roomCategory, occupancyPerRoom, roomsRequested, addons, couponCode } = pricingFields;
const { customerId, ...details } = bookingDetailFields;

export const WizardBodySchema = z
  .object({
    sessionId: z.string().optional().describe('ws_<uuid>; absent starts a new session'),
    action: z.enum(['save', 'complete']).optional().describe('save (default) or complete (book it)'),
    productId: z.string().nullable().optional(),
    departureId: z.string().nullable().optional(),
    customerId: customerId.nullable(),
    adults: adults.describe('adults count; a new session starts with 1 (docs/bookings.md, "Booking wizard sessions")'),
    children,
    infants,
    rooms,
    roomCategory,
    occupancyPerRoom,
    roomsRequested,
    addons,
    couponCode,
    booking: z.object(details).optional().describe('booking details used when the session completes (code, notes, metadata, ...)'),
  })
  .refine((b) => b.action !== 'complete' || b.sessionId !== undefined, { message: 'action complete needs a sessionId', path: ['sessionId'] })
  .refine((b) => b.booking === undefined || b.action === 'complete', { message: 'booking details are sent with action complete', path: ['booking'] })
  .meta(inferred);
export type WizardBody = z.infer<typeof WizardBodySchema>;

export const WizardResponseSchema = z.object({ data: WizardSessionSchema }).meta({ id: 'WizardSessionResponse' });
