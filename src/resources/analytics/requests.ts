import { z } from 'zod';

/**
 * GET /v1/analytics/comms/delivery-events (API description, "Analytics"). The
 * parameters are declared optional here on purpose: a missing one must answer
 * the documented plain `{error: <message>}` naming every missing parameter
 * ("Errors", first row), which the service builds, not the generic
 * VALIDATION_400 body.
 */
export const DeliveryEventsQuerySchema = z.object({
  from: z.string().optional().describe('required; YYYY-MM-DD, inclusive'),
  to: z.string().optional().describe('required; YYYY-MM-DD, inclusive'),
  workspaceId: z.string().optional().describe('required; the key\'s own workspace (uuid, or wksp_<uuid>)'),
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
