import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { LONGEST_RETRIES_MS } from '../../webhooks/retry-policy.ts';
import { durationOption } from '../duration.ts';
import { formatMs } from '../time-span.ts';
import { group, parseInteger } from './options.ts';

const YEAR_MS = 365 * 86_400_000;

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
  withWorkspace(
    controlCommand(
      events,
      'wait',
      "advance the delivery's workspace clock to each retry until it succeeded (exit 0) or gave up (exit 1); without an id, every pending delivery",
      ['events wait dlv_...', 'events wait dlv_... --timeout 30s', 'events wait dlv_... --advance-up-to 1h', 'events wait --workspace borealis'],
    ),
    'every workspace; only without a delivery id',
  )
    .argument('[delivery-id]', 'delivery id (default: every delivery pending now, and those they lead to)')
    .option(
      '--timeout <duration>',
      'give up after this long, in wall time (default: no limit; an attempt in flight that does not change for 60 s is an error)',
      durationOption('--timeout', 1, YEAR_MS),
    )
    .option(
      '--advance-up-to <duration>',
      `the most sandbox time to advance the workspace's clock (default ${formatMs(LONGEST_RETRIES_MS)}: as long as a delivery's ten retries can take)`,
      durationOption('--advance-up-to', 0, 10 * YEAR_MS),
    )
    .action(async (id: string | undefined, opts) => (await import('../events-wait.ts')).runEventsWait(id, opts));
  controlCommand(events, 'resend', 'send a delivery again now, with the same webhook-id (not counted against max_retries)', ['events resend dlv_...'])
    .argument('<delivery-id>', 'delivery id (from listen, the dashboard or GET /__sandbox/deliveries)')
    .action(async (id: string, opts) => (await import('../events.ts')).runEventsResend(id, opts));
}
