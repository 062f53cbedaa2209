import { validationError } from '../../core/errors.ts';
import { ErrorBodySchema, errorResponses } from '../../http/error-schemas.ts';
import { inferredLimit } from '../../http/warnings.ts';
import type { ZodApp } from '../types.ts';
import type { BookingPartsService } from './parts.ts';
import {
  BookingIdParamsSchema,
  BookingListSchema,
  LIST_LOCALE,
  BookingResponseSchema,
  CreateBookingBodySchema,
  ItemsBodySchema,
  ListBookingsQuerySchema,
  PassengersBodySchema,
  PassengersResponseSchema,
  PatchBookingBodySchema,
  PatchBookingResponseSchema,
} from './requests.ts';
import type { BookingService } from './service.ts';
import { createBookingWarnings, passengersWarnings, patchBookingWarnings, wizardWarnings } from './warnings.ts';
import { WizardBodySchema, WizardResponseSchema } from './wizard-requests.ts';
import type { WizardService } from './wizard.ts';

/** Errors the writing endpoints add to the common ones: state conflicts (409) and idempotency misuse (409/422). */
const writeErrors = { ...errorResponses, 409: ErrorBodySchema, 422: ErrorBodySchema };

export interface BookingServices {
  bookings: BookingService;
  parts: BookingPartsService;
  wizard: WizardService;
}

/** API description, "Bookings". Scopes: bookings:read to read, bookings:write for everything else (docs/bookings.md). */
export function registerBookingRoutes(app: ZodApp, { bookings, parts, wizard }: BookingServices, strict: boolean): void {
  app.get(
    '/bookings',
    {
      schema: { querystring: ListBookingsQuerySchema, response: { 200: BookingListSchema, ...errorResponses } },
      config: { scope: 'bookings:read', documentedStatuses: [200], summary: 'List bookings ({data, meta})' },
    },
    async (request) => {
      const locale = request.query.locale;
      if (locale !== undefined && !LIST_LOCALE.test(locale)) {
        const message = `locale "${locale}" is not shaped like en or en-GB, as the sandbox infers; it is not used by the list`;
        inferredLimit(request, strict, message, () => validationError([`querystring.locale: ${message}`]));
      }
      return bookings.list(request.principal, request.query);
    },
  );

  app.post(
    '/bookings',
    {
      schema: { body: CreateBookingBodySchema, response: { 201: BookingResponseSchema, ...writeErrors } },
      config: { scope: 'bookings:write', summary: 'Create a booking (201 {data: booking}: inferred)', inferred: true, warnings: createBookingWarnings },
    },
    async (request, reply) => reply.code(201).send({ data: await bookings.create(request.principal, request.body) }),
  );

  // Registered before /bookings/:id routes for readability; the router prefers the static segment anyway.
  app.post(
    '/bookings/wizard/session',
    {
      schema: { body: WizardBodySchema, response: { 200: WizardResponseSchema, 201: WizardResponseSchema, ...writeErrors } },
      config: { scope: 'bookings:write', summary: 'Start, change or complete a booking wizard session', inferred: true, warnings: wizardWarnings },
    },
    async (request, reply) => {
      const { statusCode, session } = await wizard.handle(request.principal, request.body);
      return reply.code(statusCode).send({ data: session });
    },
  );

  app.get(
    '/bookings/:id',
    {
      schema: { params: BookingIdParamsSchema, response: { 200: BookingResponseSchema, ...errorResponses } },
      config: { scope: 'bookings:read', summary: 'Get a booking with passengers, items and totals ({data}: inferred)', inferred: true },
    },
    async (request) => ({ data: bookings.get(request.principal, request.params.id) }),
  );

  app.patch(
    '/bookings/:id',
    {
      schema: { params: BookingIdParamsSchema, body: PatchBookingBodySchema, response: { 200: PatchBookingResponseSchema, ...writeErrors } },
      config: {
        scope: 'bookings:write',
        documentedStatuses: [200],
        summary: 'Update status and notes (bare {id, status, notes}); status moves follow the inferred state machine',
        warnings: patchBookingWarnings,
      },
    },
    async (request) => bookings.patch(request.principal, request.params.id, request.body),
  );

  app.post(
    '/bookings/:id/passengers',
    {
      schema: { params: BookingIdParamsSchema, body: PassengersBodySchema, response: { 200: PassengersResponseSchema, ...writeErrors } },
      config: { scope: 'bookings:write', documentedStatuses: [200], summary: 'Create or update passengers by person', warnings: passengersWarnings },
    },
    async (request) => parts.upsertPassengers(request.principal, request.params.id, request.body.passengers),
  );

  app.post(
    '/bookings/:id/items',
    {
      schema: { params: BookingIdParamsSchema, body: ItemsBodySchema, response: { 201: BookingResponseSchema, ...writeErrors } },
      config: { scope: 'bookings:write', summary: 'Add items (departure seats, extensions); re-prices the booking', inferred: true },
    },
    async (request, reply) => reply.code(201).send({ data: await parts.addItems(request.principal, request.params.id, request.body.items) }),
  );
}
