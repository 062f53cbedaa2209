import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { group } from './options.ts';

/** `sandbox events resend <delivery-id>`: webhook deliveries of a running sandbox. */
export function eventsCommand(program: Command): void {
  const events = group(program, 'events', 'webhook deliveries of a running sandbox', 'events resend dlv_...');
  controlCommand(events, 'resend', 'send a delivery again now, with the same webhook-id (not counted against max_retries)', ['events resend dlv_...']).argument('<delivery-id>', 'delivery id (from listen, the dashboard or GET /__sandbox/deliveries)')
    .action(async (id: string, opts) => (await import('../events.ts')).runEventsResend(id, opts));
}
