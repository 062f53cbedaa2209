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
