import type { Command } from 'commander';

/**
 * Every usage error in one style: one line, `sandbox: <what>; <way out> (sandbox <command> --help)`,
 * instead of commander's own wording over two or three lines (`unknown command 'strat'` /
 * `(Did you mean start?)` / `(run with --help for usage)`). Commander still finds the error and
 * throws it (exitOverride); only what it prints is ours.
 */

/** `sandbox: unknown command "strat"; did you mean "start"?`: the suggestion in the one style. */
export const didYouMean = (word: string | undefined): string => (word === undefined ? '' : `; did you mean "${word}"?`);

/**
 * Commander's error text (its first line, plus its "(Did you mean X?)" line) for the command
 * `path` ("sandbox keys revoke"), as our one line. Text commander did not write (a command's own
 * hint, see onUnknownOption) keeps its words; only the prefix and quotes change.
 */
export function usageLine(text: string, path: string): string {
  const [first = '', ...rest] = text
    .replace(/^error: /, '')
    .trimEnd()
    .split('\n');
  const similar = /^\(Did you mean (?:one of )?(.+)\?\)$/.exec(rest.join(' ').trim())?.[1]?.split(', ')[0];
  const help = ` (${path} --help)`;
  let m: RegExpExecArray | null;
  if ((m = /^unknown command '(.*)'$/.exec(first))) return `unknown command "${m[1]}"${didYouMean(similar)}${help}`;
  if ((m = /^unknown option '(.*)'$/.exec(first))) return `unknown option "${m[1]}" for "${path}"${didYouMean(similar)}${help}`;
  if ((m = /^option '(.+?)' argument '(.*)' is invalid\.\s*(.*)$/.exec(first))) return `${invalid(longFlag(m[1]!), m[2]!, m[3]!)}${help}`;
  if ((m = /^option '(.+?)' value '(.*)' from env '(.+)' is invalid\.\s*(.*)$/.exec(first))) return `$${m[3]}: ${invalid(longFlag(m[1]!), m[2]!, m[4]!)}`;
  if ((m = /^command-argument value '(.*)' is invalid for argument '(.+)'\.\s*(.*)$/.exec(first))) return `${invalid(`<${m[2]}>`, m[1]!, m[3]!)}${help}`;
  if ((m = /^missing required argument '(.+)'$/.exec(first))) return `${path.replace(/^sandbox /, '')} needs <${m[1]}>${help}`;
  if ((m = /^option '(.+?)' argument missing$/.exec(first))) return `${longFlag(m[1]!)} needs a value (${m[1]!.replace(/^.*?(--)/, '$1')})${help}`;
  if ((m = /^required option '(.+?)' not specified$/.exec(first))) return `${longFlag(m[1]!)} is required${help}`;
  if ((m = /^too many arguments(?: for '.+?')?\. Expected (\d+) arguments? but got (\d+)\.$/.exec(first))) {
    return `too many arguments: ${path.replace(/^sandbox /, '')} takes ${m[1]}, got ${m[2]}; quote a value with spaces${help}`;
  }
  if ((m = /^option '(.+?)' cannot be used with option '(.+?)'$/.exec(first))) return `${longFlag(m[1]!)} cannot be used with ${longFlag(m[2]!)}${help}`;
  return first.replace(/'([^']*)'/g, '"$1"');
}

/** `-p, --port <port>` -> `--port`. */
const longFlag = (flags: string): string => /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;

/** `--port must be a whole number from 0 to 65535, not "abc"`: the parser's reason, with the value given. */
function invalid(name: string, value: string, reason: string): string {
  const why = reason.trim().replace(/\.$/, '');
  if (!why) return `${name} "${value}" is not a valid value`;
  return why.startsWith(name) ? `${why}, not "${value}"` : `${name} "${value}": ${why}`;
}

/**
 * Puts every command of `program` on the one style: its errors are written by `usageLine`, with
 * its own path in the help pointer. A command's own rewriting of an error (onUnknownOption) runs
 * first. Called once the program is built: commander copies a parent's output
 * configuration into a subcommand when `.command()` makes it, never later, and its maintainers
 * point to `outputError` as the place to reword its messages (tj/commander.js#1498, #1647).
 */
export function oneStyle(command: Command, path = command.name()): void {
  const previous = command.configureOutput().outputError ?? ((str: string, write: (s: string) => void) => write(str));
  command.configureOutput({ outputError: (str, write) => previous(str, (text) => write(`sandbox: ${usageLine(text, path)}\n`)) });
  for (const sub of command.commands) oneStyle(sub, `${path} ${sub.name()}`);
}
