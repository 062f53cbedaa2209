import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { group, parseInteger } from './options.ts';

/** `sandbox events list|show|wait|resend`: webhook deliveries of a running sandbox. */
export function eventsCommand(program: Command): void {
  const events = group(program, 'events', 'webhook deliveries of a running sandbox', 'events wait dlv_...');
  withWorkspace(
    controlCommand(
      events,
      'list',
      'webhook deliveries, newest first: status, attempts, next retry or why they stopped',
      ['events list --status pending', 'events list --workspace "Aurora Tours" --json'],
      { isDefault: true },
    ),
    'every workspace',
  )
    .option('--status <status>', 'pending, failed, succeeded, cancelled or expired')
    .option('--limit <n>', 'how many (newest first)', parseInteger('--limit', 1, 500))
    .action(async (opts) => (await import('../events.ts')).runEventsList(opts));
  controlCommand(events, 'show', 'one delivery and every attempt: time, status, reason, next retry', ['events show dlv_...'])
    .argument('<delivery-id>', 'delivery id (from events list, listen or the dashboard)')
    .action(async (id: string, opts) => (await import('../events.ts')).runEventsShow(id, opts));
  controlCommand(events, 'wait', "advance the delivery's workspace clock to each retry until it succeeded (exit 0) or gave up (exit 1)", [
    'events wait dlv_...',
    'events wait dlv_... --timeout 1h',
  ])
    .argument('<delivery-id>', 'delivery id')
    .option('--timeout <duration>', 'the most sandbox time to advance (default: until the retries end)')
    .action(async (id: string, opts) => (await import('../events-wait.ts')).runEventsWait(id, opts));
  controlCommand(events, 'resend', 'send a delivery again now, with the same webhook-id (not counted against max_retries)', ['events resend dlv_...'])
    .argument('<delivery-id>', 'delivery id (from listen, the dashboard or GET /__sandbox/deliveries)')
    .action(async (id: string, opts) => (await import('../events.ts')).runEventsResend(id, opts));
}
