import { z } from 'zod';

/**
 * The payloads of the bus's rate-limit and delivery events, as zod schemas.
 * They live below both the bus (events.ts) and the live stream
 * (stream-events.ts), which import them, so neither imports the other back.
 */
export const RateLimitChangeSchema = z.object({
  bucket: z.string(),
  limit: z.number(),
  remaining: z.number(),
  reset: z.number(),
});

/** One webhook delivery attempt just recorded: a summary, not the whole delivery record. */
export const DeliveryUpdateSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  url: z.string().nullable(),
  eventType: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled', 'expired']),
  trigger: z.enum(['initial', 'retry', 'replay']),
  attempt: z.number().int().min(1),
  maxAttempts: z.number().int().min(1),
  responseStatus: z.number().int().nullable(),
  latencyMs: z.number(),
  error: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  at: z.string(),
  /** what a delivery fault rule did to it, in one line ("duplicate of dlv_…"); absent or null when none did */
  fault: z.string().nullable().optional(),
});

export type DeliveryUpdate = z.output<typeof DeliveryUpdateSchema>;
export type RateLimitChange = z.output<typeof RateLimitChangeSchema>;
