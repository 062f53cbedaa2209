import { Command, InvalidArgumentError } from 'commander';
import { errorMessage, fail } from './output.ts';

/**
 * The CLI: each command file parses options, calls createSandbox or the
 * control client, and prints. Command modules are imported only when their
 * command runs, so `sandbox --help` and `sandbox start` load only what they use.
 */
export function parseInteger(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
}

export function buildProgram(): Command {
  const program = new Command('sandbox')
    .description('travel-commerce-sandbox: a local, full-fidelity stand-in for the Travel Commerce API')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'sandbox: ')) });

  program
    .command('start')
    .description('serve the API and the control plane on this machine')
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', parseInteger('--port', 0, 65535), 4010)
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option('--data <file>', 'database file', '.sandbox/db.json')
    .option('--in-memory', 'keep everything in memory; nothing is written to disk')
    .option('--fixtures <dir>', 'fixtures directory (default: the bundled fixtures)')
    .option('--seed <n>', 'faker seed for generated fixture data', parseInteger('--seed', 0, 2 ** 31 - 1))
    .option('--clock <mode>', 'real, or manual (time moves only via the control plane)', 'real')
    .option('--no-rate-limits', 'compute and report rate limits but never enforce them (for load tests)')
    .option('--internal-key <key>', 'internal service key (or SANDBOX_INTERNAL_API_KEY)')
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host')
    .option('--json', 'print one JSON line with the URL, workspaces and keys, instead of the banner')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox start\n  $ npx sandbox start --in-memory --port 0 --json\n  $ npx sandbox start --clock manual --seed 7')
    .action(async (opts) => {
      const { runStart } = await import('./start.ts');
      await runStart(opts);
    });

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    fail(errorMessage(err));
  }
}
