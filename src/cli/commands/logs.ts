import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox logs [--follow]`: the requests served on /v1. */
export function logsCommand(program: Command): void {
  controlCommand(program, 'logs', 'print the requests served on /v1', [
    'logs --limit 20',
    'logs --follow --status 4xx',
    'logs --method POST --path /v1/bookings',
    'logs --har requests.har',
  ])
    .option('-f, --follow', 'keep printing requests as they happen, until Ctrl+C')
    .option('--limit <n>', 'how many recent requests', parseInteger('--limit', 1, 1000))
    .option('--method <method>', 'only this HTTP method')
    .option('--status <code>', 'only this status or class: 404, 4xx, 5')
    .option('--path <text>', 'only paths containing this text (* matches within a segment, ** across)')
    .option('--har <file>', 'write the requests (the whole log, or those the filters match) to <file> as HAR 1.2, oldest first')
    .action(async (opts) => (await import('../logs.ts')).runLogs(opts));
}
