import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import { inferredLimit } from '../../http/warnings.ts';
import type { ZodApp } from '../types.ts';
import { DeliveryEventsQuerySchema, type DeliveryEventsQuery, DeliveryEventsResponseSchema, PlainErrorSchema } from './requests.ts';
import { assertParameters, type AnalyticsService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const DeliveryEventsBadRequestSchema = z.union([PlainErrorSchema, errorResponses[400]]);

/** API description, "Analytics": needs `analytics:read`; answers a bare array. */
export function registerAnalyticsRoutes(app: ZodApp, service: AnalyticsService, strict: boolean): void {
  app.get(
    '/analytics/comms/delivery-events',
    {
      // a missing parameter gets the documented plain body (service.ts), any other failure VALIDATION_400
      attachValidation: true,
      schema: {
        querystring: DeliveryEventsQuerySchema,
        response: { 200: DeliveryEventsResponseSchema, ...errorResponses, 400: DeliveryEventsBadRequestSchema },
      },
      config: {
        scope: 'analytics:read',
        documentedScope: true,
        documentedStatuses: [200],
        summary: 'Daily communication delivery counts by channel and event',
      },
    },
    async (request) => {
      if (request.validationError) {
        assertParameters(request.query as Partial<DeliveryEventsQuery>);
        throw request.validationError;
      }
      return service.deliveryEvents(request.principal, request.query, (message, refusal) => inferredLimit(request, strict, message, refusal));
    },
  );
}
