import type { Command } from 'commander';
import { DEFAULT_SANDBOX_URL } from '../control.ts';
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

/**
 * --url without a default of its own, unlike the scripting commands' (./control.ts): without
 * --port, --url or $SANDBOX_URL, `stop` and `wait` look for the sandbox `start --detach` started
 * from this folder, and `stop` never falls back to the default address.
 */
function lifecycleCommand(program: Command, name: string, description: string, examples: string[], notPointed: string): Command {
  return program
    .command(name)
    .description(description)
    .option('--url <url>', `the running sandbox (default: $SANDBOX_URL, else ${notPointed})`)
    .option('--token <token>', 'control token (default: $SANDBOX_CONTROL_TOKEN)')
    .option('--json', 'machine-readable output: JSON on stdout')
    .option('--port <n>', 'the sandbox on this machine at this port (instead of --url)', parseInteger('--port', 1, 65535))
    .addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ npx sandbox ${e}`).join('\n')}`);
}

const RECORDED = 'the one `sandbox start --detach` started from this folder';

export function stopCommand(program: Command): void {
  lifecycleCommand(
    program,
    'stop',
    'stop a running sandbox as Ctrl+C would (requests in flight answered, writes flushed); returns once its process has exited',
    ['stop', 'stop --port 4010', 'stop --url "$SANDBOX_URL" --report sandbox-report.xml --report-format junit'],
    `${RECORDED} (never the default address)`,
  )
    .option(
      '--report <file>',
      'first write the run report of everything the sandbox was asked (as `sandbox exec --report` does; the summary goes to stderr, and to $GITHUB_STEP_SUMMARY when set)',
    )
    .option('--report-format <format>', 'json, or junit (one test case per /v1 operation)', 'json')
    .option(
      '--bundle <file>',
      'first write the failure bundle of the run (GET /__sandbox/bundle; `sandbox open <file>` serves it), and say how to open it in $GITHUB_STEP_SUMMARY',
    )
    .action(async (opts) => (await import('../lifecycle.ts')).runStop(opts));
}

export function waitCommand(program: Command): void {
  lifecycleCommand(
    program,
    'wait',
    'wait until a sandbox answers GET /__sandbox/health (one started in the background, a container)',
    ['wait --url http://127.0.0.1:4010 --timeout 60s'],
    `${RECORDED}, else ${DEFAULT_SANDBOX_URL}`,
  )
    .option('--timeout <duration>', 'give up after this long, in wall time (default 30s)', parseTimeout)
    .action(async (opts) => (await import('../lifecycle.ts')).runWait(opts));
}
