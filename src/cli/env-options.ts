import { InvalidArgumentError, type Command, type Option } from 'commander';

/**
 * Every option of `start` and `exec` can also come from the environment, as
 * SANDBOX_<OPTION> (`--port` is SANDBOX_PORT, `--no-rate-limits` is
 * SANDBOX_NO_RATE_LIMITS): the convention of containers and CI services
 * (docs/configuration.md, "Options from the environment"). A flag on
 * the command line wins over its variable, and the variable over the default.
 *
 * Done here rather than with commander's Option.env(), which must be given
 * before the option is added and treats a flag's variable as on whatever its
 * value: SANDBOX_IN_MEMORY=0 would keep data in memory. A flag's variable here
 * takes 1/true/yes/on or 0/false/no/off (empty: off), and anything else is one
 * line naming the variable.
 */

/**
 * Options whose variable has a name of its own: kept from before the convention, or shared with
 * the client commands (--default-workspace is SANDBOX_WORKSPACE, which they read too: src/cli/control.ts).
 */
const NAMED: Readonly<Record<string, string>> = { 'internal-key': 'SANDBOX_INTERNAL_API_KEY', 'default-workspace': 'SANDBOX_WORKSPACE' };

const ON = new Set(['1', 'true', 'yes', 'on']);
const OFF = new Set(['', '0', 'false', 'no', 'off']);

/** SANDBOX_<OPTION> of an option: its long name, upper case, dashes as underscores. */
export function envName(option: Pick<Option, 'long' | 'name'>): string {
  const name = option.name();
  return NAMED[name] ?? `SANDBOX_${name.replace(/-/g, '_').toUpperCase()}`;
}

/** Gives every option of `command` declared so far its SANDBOX_<OPTION> variable. Call once its options are all added. */
export function withEnvOptions(command: Command): Command {
  for (const option of command.options) {
    option.env(envName(option)); // for --help ("env: SANDBOX_PORT") and commander's lookup, which emits the event below
    command.on(`optionEnv:${option.name()}`, () => {
      const variable = option.envVar!;
      const raw = process.env[variable] ?? '';
      const key = option.attributeName();
      try {
        const value = fromEnv(option, raw, command.getOptionValue(key));
        if (value !== undefined) command.setOptionValueWithSource(key, value, 'env');
      } catch (err) {
        if (!(err instanceof InvalidArgumentError)) throw err;
        // a plain error: main() prints it as the one line, without commander's "run with --help" under it
        throw new Error(`${variable}=${JSON.stringify(raw)}: ${err.message}`);
      }
    });
  }
  return command;
}

/** The option's value from its variable's text; undefined when a flag's variable says off. */
function fromEnv(option: Option, raw: string, previous: unknown): unknown {
  if (!option.required && !option.optional) {
    const word = raw.trim().toLowerCase();
    if (OFF.has(word)) return undefined;
    if (!ON.has(word)) throw new InvalidArgumentError(`${option.long} is a flag: set its variable to 1 (or true) to turn it on, 0 (or false) to leave it off`);
    return !option.negate;
  }
  // a repeatable option takes a comma-separated list from its variable
  const values = /\brepeatable\b/.test(option.description)
    ? raw
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : [raw];
  let value: unknown = option.defaultValue === previous ? undefined : previous;
  for (const text of values) value = option.parseArg ? option.parseArg(text, value) : text;
  return value;
}
