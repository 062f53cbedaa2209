import { printJson } from './output.ts';
import { attemptLine } from './listen.ts';
import { controlClient, type ScriptFlags } from './control.ts';

/**
 * `sandbox events resend <delivery-id>` (as `stripe events resend`): sends a
 * delivery again now, with the same webhook-id, through
 * POST /__sandbox/deliveries/:id/replay; not counted against max_retries.
 */
export async function runEventsResend(deliveryId: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const delivery = await client.replayDelivery(deliveryId);
  if (flags.json) return printJson(delivery);
  const last = delivery.attempts.at(-1);
  process.stdout.write(last ? `${attemptLine(delivery, last)}\n` : `Delivery ${delivery.id} was not sent\n`);
}
