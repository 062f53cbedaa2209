import { isAdvised } from '../core/option-advice.ts';

/**
 * How the CLI speaks: one line per error, never a stack trace; machine output
 * (--json) on stdout only; humans get colour unless NO_COLOR is set or stdout
 * is not a terminal.
 */
const useColor = () => !process.env.NO_COLOR && process.stdout.isTTY === true;
const paint = (code: string) => (text: string) => (useColor() ? `\u001b[${code}m${text}\u001b[0m` : text);

export const bold = paint('1');
export const dim = paint('2');
export const green = paint('32');
export const yellow = paint('33');
export const cyan = paint('36');

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Prints `sandbox: <message>` to stderr and exits non-zero. */
export function fail(message: string, code = 1): never {
  process.stderr.write(`sandbox: ${message.split('\n')[0]}\n`);
  process.exit(code);
}

/**
 * The flag of each createSandbox option an error's advice may name
 * (src/core/option-advice.ts): the library says "the `port` option", the CLI "--port <n>".
 */
const FLAG_OF_OPTION: Readonly<Record<string, string>> = {
  port: '--port <n>',
  storage: '--data another.json',
  defaultWorkspace: '--default-workspace (or $SANDBOX_WORKSPACE)',
};

export function errorMessage(err: unknown): string {
  if (isAdvised(err) && Object.hasOwn(FLAG_OF_OPTION, err.advice.option)) return `${err.problem}; ${err.advice.text(FLAG_OF_OPTION[err.advice.option]!)}`;
  if (err instanceof Error) return err.message;
  return String(err);
}
