import { z } from 'zod';

/**
 * Communication delivery events (API description, "Communication delivery
 * event row"). Rows are stored pre-aggregated, one per day, channel and event;
 * the id `${day}|${channel}|${event}` is storage-only and not part of the
 * documented response row `{day, channel, event, cnt}`.
 */
export const DELIVERY_CHANNELS = ['email', 'sms'] as const;
export const DELIVERY_EVENTS = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'failed'] as const;

export const DeliveryEventRowSchema = z
  .object({
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the description shows the id's form, not a template
    id: z.string().describe('`${day}|${channel}|${event}` (storage key)'),
    day: z.iso.date(),
    channel: z.enum(DELIVERY_CHANNELS),
    event: z.enum(DELIVERY_EVENTS).meta({ 'x-sandbox-inferred': true }),
    cnt: z.number().int().min(0),
  })
  .refine((row) => row.id === deliveryEventRowId(row), { path: ['id'], message: 'id must be day|channel|event' });
export type DeliveryEventRow = z.infer<typeof DeliveryEventRowSchema>;

export function deliveryEventRowId(row: { day: string; channel: string; event: string }): string {
  return `${row.day}|${row.channel}|${row.event}`;
}
