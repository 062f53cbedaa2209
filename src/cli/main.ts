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

/** The options shared by every command that runs a sandbox itself (start, exec). */
function withServeOptions(command: Command, defaults: { port: number }): Command {
  return command
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', parseInteger('--port', 0, 65535), defaults.port)
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option('--data <file>', 'database file', defaults.port === 0 ? undefined : '.sandbox/db.json')
    .option('--in-memory', 'keep everything in memory; nothing is written to disk')
    .option('--fixtures <dir>', 'fixtures directory (default: the bundled fixtures)')
    .option('--seed <n>', 'faker seed for generated fixture data', parseInteger('--seed', 0, 2 ** 31 - 1))
    .option('--clock <mode>', 'real, or manual (time moves only via the control plane)', 'real')
    .option('--no-rate-limits', 'compute and report rate limits but never enforce them (for load tests)')
    .option('--internal-key <key>', 'internal service key (or SANDBOX_INTERNAL_API_KEY)')
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host');
}

export function buildProgram(): Command {
  const program = new Command('sandbox')
    .description('travel-commerce-sandbox: a local, full-fidelity stand-in for the Travel Commerce API')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'sandbox: ')) });

  withServeOptions(program.command('start').description('serve the API and the control plane on this machine'), { port: 4010 })
    .option('--json', 'print one JSON line with the URL, workspaces and keys, instead of the banner')
    .option('--watch', 'reload fixtures, scenarios and hand edits of the database file while running')
    .option('--scenarios <dir>', 'scenarios directory to watch (default: the bundled scenarios)')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox start\n  $ npx sandbox start --watch --fixtures ./my-fixtures\n  $ npx sandbox start --in-memory --port 0 --json\n  $ npx sandbox start --clock manual --seed 7')
    .action(async (opts) => {
      const { runStart } = await import('./start.ts');
      await runStart(opts);
    });

  withServeOptions(program.command('exec').description('start a sandbox (in memory, on a free port), run a command against it, stop it, exit with its code'), { port: 0 })
    .argument('<command...>', 'the command to run, after --')
    .option('--key <which>', 'which fixture key SANDBOX_API_KEY holds: sandbox or live', 'sandbox')
    .addHelpText('after', '\nThe command gets SANDBOX_URL, SANDBOX_API_KEY, SANDBOX_CONTROL_URL and SANDBOX_WORKSPACE_ID.\n\nExamples:\n  $ npx sandbox exec -- npm test\n  $ npx sandbox exec --no-rate-limits -- node -e "fetch(process.env.SANDBOX_URL + \'/__sandbox/health\')"')
    .action(async (command: string[], opts) => {
      const { runExec } = await import('./exec.ts');
      await runExec(command, opts);
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
