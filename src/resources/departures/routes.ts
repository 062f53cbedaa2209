import { ErrorBodySchema, errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { DepartureIdParamsSchema, DepartureResponseSchema, PriceRequestBodySchema, QuoteResponseSchema } from './requests.ts';
import type { DepartureService } from './service.ts';
import { priceWarnings } from '../bookings/warnings.ts';

/**
 * API description, "Departures": GET /v1/departures/:id and POST
 * /v1/departures/:id/price. Both shapes are "not shown": a departure is
 * answered as {data: departure}, a quote as {data: quote} (docs/bookings.md).
 */
export function registerDepartureRoutes(app: ZodApp, service: DepartureService): void {
  app.get(
    '/departures/:id',
    {
      schema: { params: DepartureIdParamsSchema, response: { 200: DepartureResponseSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: 'Get a departure: dates, capacity, seats left, status', inferred: true },
    },
    async (request) => ({ data: service.get(request.principal, request.params.id) }),
  );

  app.post(
    '/departures/:id/price',
    {
      schema: {
        params: DepartureIdParamsSchema,
        body: PriceRequestBodySchema,
        response: { 200: QuoteResponseSchema, ...errorResponses, 409: ErrorBodySchema, 422: ErrorBodySchema },
      },
      config: { scope: 'products:read', summary: 'Price a party on a departure (quote; holds no seats)', inferred: true, warnings: priceWarnings },
    },
    async (request) => ({ data: service.price(request.principal, request.params.id, request.body) }),
  );
}
