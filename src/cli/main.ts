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

function parseFactor(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError('--webhook-retry-scale must be a number above 0 and at most 1');
  return n;
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
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host')
    .option('--strict-webhook-urls', 'refuse plain http:// webhook URLs even on loopback, as production does')
    .option('--webhook-retry-scale <factor>', 'shrink the webhook retry schedule (0 < factor <= 1) to watch retries live', parseFactor);
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

  program.command('listen').description('deliver webhooks from a running sandbox to a local URL and print each delivery')
    .requiredOption('--forward-to <url>', 'the receiver, e.g. http://localhost:3000/webhooks')
    .option('--events <patterns>', 'comma-separated event names or patterns', '*')
    .option('--workspace <id|name>', 'workspace (default: the first one)')
    .option('--print-secret', 'print only the signing secret and exit (for scripts)')
    .option('--url <url>', 'the running sandbox', 'http://127.0.0.1:4010')
    .option('--token <token>', 'control token (or SANDBOX_CONTROL_TOKEN)')
    .addHelpText('after', "\nExamples:\n  $ npx sandbox listen --forward-to http://localhost:3000/webhooks --events 'booking.*'\n  $ export WEBHOOK_SECRET=$(npx sandbox listen --forward-to http://localhost:3000/webhooks --print-secret)")
    .action(async (opts) => {
      const { runListen } = await import('./listen.ts');
      await runListen(opts);
    });

  program.command('trigger').description('emit a webhook event in a running sandbox')
    .argument('<event-type>', 'a catalogue event, e.g. booking.created')
    .option('--workspace <id|name>', 'workspace (default: the first one)')
    .option('--data <json>', 'the event data as a JSON object (default: made from the workspace)')
    .option('--url <url>', 'the running sandbox', 'http://127.0.0.1:4010')
    .option('--token <token>', 'control token (or SANDBOX_CONTROL_TOKEN)')
    .option('--json', 'print the event and delivery ids as one JSON line')
    .action(async (type: string, opts) => {
      const { runTrigger } = await import('./trigger.ts');
      await runTrigger(type, opts);
    });

  const scenario = program.command('scenario').description('list and run scripted scenarios (scenarios/*.json)');
  scenario.command('list').description('list the scenarios').option('--dir <dir>', 'scenarios directory').option('--json', 'machine output')
    .action(async (opts) => (await import('./scenario.ts')).runScenarioList(opts));
  scenario.command('run').description('run one scenario; exits 1 when a step fails')
    .argument('<name|file>', 'a scenario name from the directory, or a path to a .json file')
    .option('--url <url>', 'a running sandbox (default: a fresh in-memory one for the run)')
    .option('--token <token>', 'control-plane token (or SANDBOX_CONTROL_TOKEN)')
    .option('--dir <dir>', 'scenarios directory')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox scenario run sandbox-rate-limit\n  $ npx sandbox scenario run ./my-case.json --url http://127.0.0.1:4010')
    .action(async (name: string, opts) => (await import('./scenario.ts')).runScenarioRun(name, opts));

  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    fail(errorMessage(err));
  }
}
