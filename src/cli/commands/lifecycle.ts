import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { parseDuration } from '../duration.ts';
import { parseInteger } from './options.ts';
import { InvalidArgumentError } from 'commander';

/** `sandbox stop` and `sandbox wait`: a sandbox running in the background, from a shell (docs/cli.md, "In the background"). */
function parseTimeout(value: string): number {
  try {
    return parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

const withPort = (command: Command): Command =>
  command.option('--port <n>', 'the sandbox on this machine at this port (instead of --url)', parseInteger('--port', 1, 65535));

export function stopCommand(program: Command): void {
  withPort(
    controlCommand(
      program,
      'stop',
      'stop a running sandbox as Ctrl+C would (requests in flight answered, writes flushed); returns once its process has exited',
      ['stop --port 4010', 'stop --url "$SANDBOX_URL" --report sandbox-report.xml --report-format junit'],
    ),
  )
    .option('--report <file>', 'first write the run report of everything the sandbox was asked (as `sandbox exec --report` does; the summary goes to stderr)')
    .option('--report-format <format>', 'json, or junit (one test case per /v1 operation)', 'json')
    .action(async (opts) => (await import('../lifecycle.ts')).runStop(opts));
}

export function waitCommand(program: Command): void {
  withPort(
    controlCommand(program, 'wait', 'wait until a sandbox answers GET /__sandbox/health (one started in the background, a container)', [
      'wait --url http://127.0.0.1:4010 --timeout 60s',
    ]),
  )
    .option('--timeout <duration>', 'give up after this long (default 30s)', parseTimeout)
    .action(async (opts) => (await import('../lifecycle.ts')).runWait(opts));
}
