import type { Command } from 'commander';

/**
 * The options a user may put before or after the command name (docs/cli.md, "Scripting a
 * running sandbox"): `sandbox --url http://127.0.0.1:4011 clock` and `sandbox clock --url …`
 * are one command line. The program declares them, and commander then reads them wherever they
 * stand before `--` (a program option is positional only under enablePositionalOptions, which
 * this CLI does not turn on). Each command still declares the ones it takes, with its own help
 * and default; before its action runs, the value given on the command line is copied onto it, so
 * every command reads them one way, from its own options. A command that does not take one
 * (`sandbox --workspace W clock`, `sandbox start --url …`) refuses it as the unknown option it is.
 * `--no-color` is the program's alone: any command takes it (the preAction hook in ./main.ts).
 */
const GLOBAL_OPTIONS: readonly (readonly [flags: string, description: string])[] = [
  ['--url <url>', 'the running sandbox, for the commands that talk to one (before or after the command name)'],
  ['--token <token>', 'its control token, with --url (default: $SANDBOX_CONTROL_TOKEN)'],
  ['--workspace <id|name>', 'the workspace, for the commands that work in one'],
  ['--json', 'machine-readable output, for the commands that have it'],
];

/** Declares the global options on the program, without defaults: each command keeps its own. */
export function withGlobalOptions(program: Command): Command {
  for (const [flags, description] of GLOBAL_OPTIONS) program.option(flags, description);
  return program;
}

/** The long flags of the global options that take a value (`--url`), and those that do not (`--json`, `--no-color`). */
const WITH_VALUE = new Set(GLOBAL_OPTIONS.filter(([flags]) => flags.includes('<')).map(([flags]) => flags.split(' ')[0]!));
const FLAGS = new Set([...GLOBAL_OPTIONS.filter(([flags]) => !flags.includes('<')).map(([flags]) => flags), '--no-color']);

/**
 * Copies the global options given on the command line from the program onto the command that
 * runs (a preAction hook of the program). A command that does not declare one fails as commander
 * fails on an unknown option: the same one line, in the command's own words (./usage.ts), exit 2.
 */
export function copyGlobalOptions(program: Command, action: Command): void {
  if (action === program) return;
  for (const option of program.options) {
    const key = option.attributeName();
    if (program.getOptionValueSource(key) !== 'cli' || !option.long || option.long === '--no-color') continue;
    const own = action.options.find((o) => o.long === option.long);
    if (!own) action.error(`error: unknown option '${option.long}'`, { code: 'commander.unknownOption', exitCode: 2 });
    const value = program.getOptionValue(key);
    action.setOptionValueWithSource(own.attributeName(), own.parseArg && typeof value === 'string' ? own.parseArg(value, undefined) : value, 'cli');
  }
}

/**
 * The command line without its global options, for the look at the command's name that comes
 * before commander's parse (`sandbox --json keys bogus` names the group `keys`).
 */
export function withoutGlobalOptions(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return [...out, ...args.slice(i)];
    if (FLAGS.has(arg) || WITH_VALUE.has(arg.split('=')[0]!)) {
      if (WITH_VALUE.has(arg)) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}
