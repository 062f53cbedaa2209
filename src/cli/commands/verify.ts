import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox verify`: an assertion on the request log that exits 0 or 1 (docs/cli.md, "`sandbox verify`"). */
export function verifyCommand(program: Command): void {
  withWorkspace(
    controlCommand(
      program,
      'verify',
      'assert how many logged /v1 requests (or, with --delivery, webhook deliveries) match; exit 1 with the nearest misses when the count is wrong',
      [
        'verify --method POST --path /v1/bookings --status 201 --count 3',
        'verify --path "/v1/bookings/*" --status 4xx --at-most 0 --since req_...',
        'verify --delivery --fault duplicate --status 2xx --count 4',
      ],
    ),
    'every workspace',
  )
    .option('--method <method>', 'only this HTTP method')
    .option('--path <path>', 'the whole path (query aside); * matches within a segment, ** across')
    .option('--status <code>', "a status or a class: 201, 4xx, 5 (with --delivery: the receiver's answer to the latest attempt)")
    .option('--count <n>', 'exactly this many', parseInteger('--count', 0, 1000))
    .option('--at-least <n>', 'at least this many (the default: 1)', parseInteger('--at-least', 0, 1000))
    .option('--at-most <n>', 'at most this many', parseInteger('--at-most', 0, 1000))
    .option('--since <request-id|time>', 'only requests after this request id, or at or after this ISO time')
    .option('--delivery', 'count webhook deliveries instead of /v1 requests')
    .option(
      '--fault <action>',
      'with --delivery: only those a delivery rule touched: duplicate (the duplicates made), reorder, latency, drop, hold, any, or none',
    )
    .option('--event <pattern>', 'with --delivery: only events of this type or pattern (booking.*)')
    .action(async (opts) => (await import('../verify.ts')).runVerify(opts));
}
