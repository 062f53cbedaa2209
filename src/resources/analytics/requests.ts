import { z } from 'zod';

/**
 * GET /v1/analytics/comms/delivery-events (API description, "Analytics"): all
 * three parameters are required, and the schema says so, so that the OpenAPI
 * document and a client generated from it do too. A missing one
 * still answers the documented plain `{error}` naming every missing parameter
 * ("Errors", first row), not VALIDATION_400: the route attaches the validation
 * error and lets the service build that body (routes.ts).
 */
export const DeliveryEventsQuerySchema = z.object({
  from: z.string().describe('YYYY-MM-DD, inclusive'),
  to: z.string().describe('YYYY-MM-DD, inclusive'),
  workspaceId: z.string().describe("the key's own workspace (uuid, or wksp_<uuid>)"),
});
export type DeliveryEventsQuery = z.infer<typeof DeliveryEventsQuerySchema>;

export const DeliveryEventResponseRowSchema = z.object({
  day: z.iso.date(),
  channel: z.string(),
  event: z.string(),
  cnt: z.number().int().min(0),
});
export const DeliveryEventsResponseSchema = z.array(DeliveryEventResponseRowSchema);
export type DeliveryEventResponseRow = z.infer<typeof DeliveryEventResponseRowSchema>;

/** The documented body for missing parameters: `{error}` only ("Errors"). */
export const PlainErrorSchema = z.object({ error: z.string() });
