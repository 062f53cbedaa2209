import { printJson } from './output.ts';
import { attemptLine } from './listen.ts';
import { say } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';
import { deliveryDetails, deliveryTable } from './delivery-lines.ts';

/**
 * `sandbox events list|show|resend` (as `stripe events`): webhook deliveries
 * of a running sandbox (GET /__sandbox/deliveries, GET /deliveries/:id,
 * POST /deliveries/:id/replay). `events wait` is in ./events-wait.ts.
 */
export const LISTED_STATUSES = ['pending', 'failed', 'succeeded', 'cancelled', 'expired'] as const;

export interface EventsListFlags extends ScriptFlags {
  status?: string;
  limit?: number;
}

export async function runEventsList(flags: EventsListFlags): Promise<void> {
  const status = flags.status?.toLowerCase();
  if (status !== undefined && !(LISTED_STATUSES as readonly string[]).includes(status))
    throw new Error(`--status must be one of ${LISTED_STATUSES.join(', ')}, not "${flags.status}"`);
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const deliveries = await client.deliveries({ workspaceId, status: status as (typeof LISTED_STATUSES)[number] | undefined, limit: flags.limit ?? 50 });
  if (flags.json) return printJson(deliveries);
  if (deliveries.length === 0) return say(status ? `No ${status} deliveries` : 'No deliveries yet');
  say(deliveryTable(deliveries));
}

export async function runEventsShow(deliveryId: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const delivery = await client.delivery(deliveryId);
  if (flags.json) return printJson(delivery);
  say(deliveryDetails(delivery));
}

/**
 * `sandbox events resend <delivery-id>`: sends a delivery again now, with the
 * same webhook-id, through POST /__sandbox/deliveries/:id/replay; not counted against max_retries.
 */
export async function runEventsResend(deliveryId: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const delivery = await client.replayDelivery(deliveryId);
  if (flags.json) return printJson(delivery);
  const last = delivery.attempts.at(-1);
  process.stdout.write(last ? `${attemptLine(delivery, last)}\n` : `Delivery ${delivery.id} was not sent\n`);
}
