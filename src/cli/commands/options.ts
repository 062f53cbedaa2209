import { InvalidArgumentError, type Command } from 'commander';

/** Option parsers and the group helper the command declarations share. */
export function parseInteger(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
}

/** A repeatable option: every value, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** A group of subcommands (`sandbox keys list|create|revoke`). */
export const group = (program: Command, name: string, description: string, example: string): Command =>
  program.command(name).description(description).addHelpText('after', `\nExample:\n  $ npx sandbox ${example}`);

/**
 * Rewrites commander's "unknown option '<flag>'" line of one command with a way
 * out: `hint` gets the flag and gives the whole new line, or null to
 * keep commander's. The command's other errors are printed unchanged.
 */
export function onUnknownOption(command: Command, hint: (flag: string, line: string) => string | null): Command {
  const { outputError } = command.configureOutput();
  return command.configureOutput({
    outputError: (str, write) => {
      const flag = /^error: unknown option '(.+?)'/.exec(str)?.[1];
      const line = flag === undefined ? null : hint(flag, str.trimEnd());
      outputError!(line === null ? str : `${line}\n`, write);
    },
  });
}

/**
 * `clock advance -5m`: commander reads -5m as an option; after `--` it reaches
 * the duration parser. Both say the same: time only moves forward here.
 */
export const looksNegative = (text: string): boolean => /^-\d/.test(text.trim());
export const negativeDuration = (text: string): string =>
  `"${text}" is a negative duration, and advancing moves the clock forward only; to go back, \`sandbox clock set <iso>\` (a manual clock only)`;

/** The unknown-option line of a command that takes a duration. */
export const durationOptionHint = (flag: string): string | null => (looksNegative(flag) ? `error: ${negativeDuration(flag)}` : null);
