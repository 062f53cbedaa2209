import { InvalidArgumentError, type Command } from 'commander';
import { controlCommand } from '../control.ts';
import { durationOption } from '../duration.ts';
import { collect, group, parseInteger } from './options.ts';

/** `sandbox fault add|list|clear`: failures injected into /v1 requests, or (--delivery) into webhook deliveries. */
function parseProbability(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1) || value.trim() === '') throw new InvalidArgumentError('--probability must be a number from 0 to 1');
  return n;
}

/** MAX_DELIVERY_DELAY_MS of src/core/fault-rule.ts, which loads zod: a declaration file must not */
const MAX_DELIVERY_DELAY_MS = 7 * 86_400_000;

/**
 * A request rule's --latency is real time, up to 2m; a delivery rule's is sandbox time, up to 7d.
 * The option takes either, and says the request rule's bound when the text is no duration at all.
 */
function latencyOption(value: string): number {
  try {
    return durationOption('--latency', 0, MAX_DELIVERY_DELAY_MS)(value);
  } catch {
    return durationOption('--latency', 0, 120_000)(value);
  }
}

export function faultCommand(program: Command): void {
  const fault = group(program, 'fault', 'inject failures into /v1 requests or webhook deliveries', "fault add --path '/v1/bookings/**' --status 503 --times 3");
  controlCommand(
    fault,
    'add',
    'add a fault rule (status, latency or drop; with --delivery: duplicate, reorder, latency, drop or hold-until); without --workspace it matches every workspace',
    [
      'fault add --method POST --path /v1/bookings --status 500 --body \'{"error":"boom"}\'',
      'fault add --latency 3s --probability 0.2 --seed 7',
      "fault add --delivery --event 'booking.*' --duplicate --probability 0.3 --seed 7",
      'fault add --delivery --hold-until 30s',
    ],
  )
    .option('--workspace <id|name>', 'only requests of this workspace (default: every workspace)')
    .option('--method <method>', 'HTTP method')
    .option('--path <glob>', 'path pattern: * within a segment, ** across')
    .option('--key <key>', 'only requests with this key: its id, prefix or the key itself')
    .option('--status <code>', 'answer this status', parseInteger('--status', 100, 599))
    .option('--body <json>', 'answer this body (JSON)')
    .option('--header <name:value>', 'answer this header (repeatable)', collect)
    .option(
      '--latency <duration>',
      'wait this long first: 250 (ms), 250ms, 2s; real time up to 2m (with --delivery: sandbox time up to 7d, or with --duplicate when the duplicate follows)',
      latencyOption,
    )
    .option('--drop', 'drop the connection (with --delivery: the first attempt is not sent, so a retry follows)')
    .option('--delivery', 'the rule targets webhook deliveries instead of /v1 requests')
    .option('--event <pattern>', 'with --delivery: only events of this type or pattern (booking.created, booking.*)')
    .option('--subscription <id>', 'with --delivery: only deliveries to this subscription')
    .option('--duplicate', 'with --delivery: deliver the event again after the first answer (same webhook-id, signed afresh)')
    .option(
      '--reorder <duration>',
      'with --delivery: hold the event back this long, so later events overtake it',
      durationOption('--reorder', 1, MAX_DELIVERY_DELAY_MS),
    )
    .option('--hold-until <duration|time>', 'with --delivery: an outage: matching deliveries wait until then (30s, or an ISO time), then all go at once')
    .option('--times <n>', 'fire on the next n matches (default 1)', parseInteger('--times', 1, 1_000_000))
    .option('--probability <p>', 'fire on each match with this probability, until cleared', parseProbability)
    .option('--seed <n>', 'seed of the probability draws', parseInteger('--seed', 0, 2 ** 31 - 1))
    .action(async (opts) => (await import('../fault.ts')).runFaultAdd(opts));
  controlCommand(fault, 'list', 'list the fault rules', ['fault list'], { isDefault: true }).action(async (opts) =>
    (await import('../fault.ts')).runFaultList(opts),
  );
  controlCommand(fault, 'clear', 'remove one fault rule, or all; the deliveries they hold are sent now', ['fault clear', 'fault clear fault_1a2b3c4d'])
    .argument('[id]', 'rule id (default: all)')
    .action(async (id: string | undefined, opts) => (await import('../fault.ts')).runFaultClear(id, opts));
}
