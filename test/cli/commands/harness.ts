import { afterAll, beforeAll } from 'vitest';
import { createSandbox, type Sandbox } from '../../../src/index.ts';
import { runCli } from '../../helpers/cli.ts';

/**
 * One real sandbox (a real socket, manual clock, in memory) per test file,
 * and the real bin run against it with --url.
 */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function useSandbox(): { readonly sandbox: Sandbox; cli: (args: string[]) => Promise<CliResult>; api: (method: string, path: string, key: string, body?: unknown) => Promise<Response> } {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
  });
  afterAll(() => sandbox?.stop());
  return {
    get sandbox() {
      return sandbox!;
    },
    cli: (args) => runCli([...args, '--url', sandbox!.url]).exit,
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
