import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { fail } from './output.ts';
import { errorLine } from './control.ts';
import { closest } from '../core/suggest.ts';
import { didYouMean, oneStyle } from './usage.ts';
import { copyGlobalOptions, withGlobalOptions, withoutGlobalOptions } from './global-options.ts';
import { followThisFolder } from './folder-sandbox.ts';

import { bundleCommand, openCommand } from './commands/bundle.ts';
import { clockCommand } from './commands/clock.ts';
import { dashboardCommand } from './commands/dashboard.ts';
import { dataCommand } from './commands/data.ts';
import { eventsCommand } from './commands/events.ts';
import { execCommand } from './commands/exec.ts';
import { faultCommand } from './commands/fault.ts';
import { inspectCommand } from './commands/inspect.ts';
import { keysCommand } from './commands/keys.ts';
import { listenCommand } from './commands/listen.ts';
import { logsCommand } from './commands/logs.ts';
import { mcpCommand } from './commands/mcp.ts';
import { openapiCommand } from './commands/openapi.ts';
import { orgKeysCommand } from './commands/org-keys.ts';
import { otpCommand } from './commands/otp.ts';
import { parityCommand } from './commands/parity.ts';
import { ratelimitCommand } from './commands/ratelimit.ts';
import { scenarioCommand } from './commands/scenario.ts';
import { seedCommand } from './commands/seed.ts';
import { resetCommand, snapshotCommand } from './commands/snapshot.ts';
import { startCommand } from './commands/start.ts';
import { proxyCommand } from './commands/proxy.ts';
import { stopCommand, waitCommand } from './commands/lifecycle.ts';
import { triggerCommand } from './commands/trigger.ts';
import { verifyCommand } from './commands/verify.ts';
import { workspaceCommand } from './commands/workspace.ts';

// for bin/sandbox.js, which writes the CLI's code cache inside it (bin/code-cache.js)
export { withDefaultV8Flags } from './young-generation.ts';

/**
 * The CLI: one list of commands. Each command declares its arguments and
 * options in its own file under ./commands/, and its action imports the
 * module that runs it only when it runs, so `sandbox --help` and
 * `sandbox start` load only what they use. Commands that talk to a running
 * sandbox share ./control.ts (docs/cli.md).
 */
const COMMANDS: readonly ((program: Command) => void)[] = [
  startCommand,
  proxyCommand,
  stopCommand,
  waitCommand,
  openapiCommand,
  execCommand,
  listenCommand,
  triggerCommand,
  dashboardCommand,
  inspectCommand,
  scenarioCommand,
  mcpCommand,
  openCommand,
  // the scripting commands: each a thin file over the control client
  keysCommand,
  orgKeysCommand,
  clockCommand,
  faultCommand,
  ratelimitCommand,
  snapshotCommand,
  bundleCommand,
  workspaceCommand,
  resetCommand,
  seedCommand,
  dataCommand,
  logsCommand,
  verifyCommand,
  eventsCommand,
  otpCommand,
  parityCommand,
];

/**
 * The commands that start a sandbox, which CI pays for on every job: given as
 * the first argument, only that command is built (commander's ~60 options
 * cost a start a few ms). Its parsing, errors and help are the same.
 */
const STARTING: Readonly<Record<string, (program: Command) => void>> = { start: startCommand, exec: execCommand, proxy: proxyCommand };

/** The whole CLI, or just `commandName` when it is one of the starting commands. */
export function buildProgram(commandName?: string): Command {
  const program = new Command('sandbox')
    .description('travel-commerce-sandbox: a local, full-fidelity stand-in for the Travel Commerce API')
    // what commander prints on a usage error is restyled per command by oneStyle() below (./usage.ts)
    .configureOutput({ outputError: (str, write) => write(str) })
    // usage errors are thrown, not exited on, so main() can give them exit code 2 (docs/cli.md, "Exit codes, errors and colour")
    .exitOverride();
  // --url, --token, --workspace and --json before or after the command name (./global-options.ts)
  withGlobalOptions(program)
    .option('--no-color', 'print without colours, as NO_COLOR=1 does (any command)')
    .hook('preAction', async (root, action) => {
      if (root.opts().color === false) process.env.NO_COLOR = '1';
      copyGlobalOptions(root, action);
      await followThisFolder(action);
    })
    .version(packageJson.version, '-V, --version', 'print the version')
    // every help ends with an example (docs/cli.md); test/cli/commands/help-examples.test.ts walks them all
    .addHelpText('after', '\nExamples:\n  $ npx sandbox start\n  $ npx sandbox exec -- npm test');
  const sole = commandName !== undefined && Object.hasOwn(STARTING, commandName) ? STARTING[commandName] : undefined;
  for (const add of sole ? [sole] : COMMANDS) add(program);
  oneStyle(program);
  return program;
}

/**
 * `sandbox keys bogus`: a group with a default subcommand (`keys` = `keys list`)
 * would hand "bogus" to that default as an excess argument ("too many
 * arguments for 'list'"); name it as the unknown command it is instead.
 */
export function unknownSubcommand(program: Command, args: readonly string[]): string | null {
  const [name, sub] = args;
  const group = program.commands.find((c) => c.name() === name || c.aliases().includes(name ?? ''));
  if (!group || group.commands.length === 0 || sub === undefined || sub.startsWith('-')) return null;
  if (group.commands.some((c) => c.name() === sub || c.aliases().includes(sub))) return null;
  const names = group.commands.map((c) => c.name());
  const close = closest(sub, names);
  return `unknown command "${name} ${sub}"${didYouMean(close === null ? undefined : `${name} ${close}`)}${close === null ? ';' : ''} ${name} has: ${names.join(', ')} (sandbox ${name} --help)`;
}

/** A command line of the wrong form exits 2; a well-formed one with a bad value exits 1, as any other error. */
const USAGE_ERRORS = new Set([
  'commander.unknownOption',
  'commander.unknownCommand',
  'commander.missingArgument',
  'commander.optionMissingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.excessArguments',
  'commander.conflictingOption',
]);

export async function main(argv: string[]): Promise<void> {
  // `sandbox openapi | head`: a reader that stops early is not an error
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  try {
    const program = buildProgram(argv[2]);
    const unknown = unknownSubcommand(program, withoutGlobalOptions(argv.slice(2)));
    if (unknown) fail(unknown, 2);
    await program.parseAsync(argv);
  } catch (err) {
    // commander has printed its one line already
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : USAGE_ERRORS.has(err.code) ? 2 : 1);
    fail(errorLine(err));
  }
}
