import { afterAll, beforeAll } from 'vitest';
import { createSandbox, type Sandbox } from '../../../src/index.ts';
import { runCliInProcess, type CliResult } from '../../helpers/cli-in-process.ts';

export type { CliResult };

/**
 * One real sandbox (a real socket, manual clock, in memory) per test file, and
 * the CLI's commands run against it with --url, in this process through the
 * CLI's own entry (test/helpers/cli-in-process.ts): the same program, output and
 * exit codes as the bin, without a Node start per command. What only the bin
 * can show (start, exec, signals, the shim) is tested by spawning it
 * (test/cli/start.test.ts, exec.test.ts, bin-names.test.ts, ...).
 */

export function useSandbox(): {
  readonly sandbox: Sandbox;
  cli: (args: string[]) => Promise<CliResult>;
  api: (method: string, path: string, key: string, body?: unknown) => Promise<Response>;
} {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
  });
  afterAll(() => sandbox?.stop());
  return {
    get sandbox() {
      return sandbox!;
    },
    cli: (args) => runCliInProcess([...args, '--url', sandbox!.url]),
    api: (method, path, key, body) =>
      fetch(`${sandbox!.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
  };
}

/** The single JSON document on stdout. */
export const json = <T = any>(r: CliResult): T => JSON.parse(r.stdout) as T;

/** A failure: exit 1, exactly one line on stderr, no stack trace. */
export function expectOneLineFailure(r: CliResult): string {
  if (r.code !== 1) throw new Error(`expected exit 1, got ${r.code}: ${r.stderr}`);
  const lines = r.stderr.trim().split('\n');
  if (lines.length !== 1 || !lines[0]!.startsWith('sandbox: ')) throw new Error(`expected one "sandbox: " line on stderr, got: ${r.stderr}`);
  return lines[0]!;
}
