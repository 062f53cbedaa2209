import { InvalidArgumentError, type Command } from 'commander';
import { controlCommand } from '../control.ts';
import { durationOption } from '../duration.ts';
import { collect, group, parseInteger } from './options.ts';

/** `sandbox fault add|list|clear`: failures injected into /v1 requests. */
function parseProbability(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1) || value.trim() === '') throw new InvalidArgumentError('--probability must be a number from 0 to 1');
  return n;
}

export function faultCommand(program: Command): void {
  const fault = group(program, 'fault', 'inject failures into /v1 requests', "fault add --path '/v1/bookings/**' --status 503 --times 3");
  controlCommand(fault, 'add', 'add a fault rule (status, latency or drop); without --workspace it matches every workspace', [
    'fault add --method POST --path /v1/bookings --status 500 --body \'{"error":"boom"}\'',
    'fault add --latency 3s --probability 0.2 --seed 7',
  ])
    .option('--workspace <id|name>', 'only requests of this workspace (default: every workspace)')
    .option('--method <method>', 'HTTP method')
    .option('--path <glob>', 'path pattern: * within a segment, ** across')
    .option('--key <key>', 'only requests with this key: its id, prefix or the key itself')
    .option('--status <code>', 'answer this status', parseInteger('--status', 100, 599))
    .option('--body <json>', 'answer this body (JSON)')
    .option('--header <name:value>', 'answer this header (repeatable)', collect)
    .option('--latency <duration>', 'wait this long first: 250 (ms), 250ms, 2s, up to 2m', durationOption('--latency', 0, 120_000))
    .option('--drop', 'drop the connection')
    .option('--times <n>', 'fire on the next n matches (default 1)', parseInteger('--times', 1, 1_000_000))
    .option('--probability <p>', 'fire on each match with this probability, until cleared', parseProbability)
    .option('--seed <n>', 'seed of the probability draws', parseInteger('--seed', 0, 2 ** 31 - 1))
    .action(async (opts) => (await import('../fault.ts')).runFaultAdd(opts));
  controlCommand(fault, 'list', 'list the fault rules', ['fault list'], { isDefault: true }).action(async (opts) =>
    (await import('../fault.ts')).runFaultList(opts),
  );
  controlCommand(fault, 'clear', 'remove one fault rule, or all', ['fault clear', 'fault clear fault_1a2b3c4d'])
    .argument('[id]', 'rule id (default: all)')
    .action(async (id: string | undefined, opts) => (await import('../fault.ts')).runFaultClear(id, opts));
}
