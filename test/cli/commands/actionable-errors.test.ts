import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { expectOneLineFailure, useSandbox } from './harness.ts';

/** Each of these is one line naming the flag, file or id, exit 1. */
const t = useSandbox();
const bare = async (args: string[]) => runCliInProcess(args, { SANDBOX_URL: '' });

describe('errors a person can act on', () => {
  it('ratelimit exhaust --key <unknown> says not found', async () => {
    expect(expectOneLineFailure(await t.cli(['ratelimit', 'exhaust', '--key', 'orgkey_nope']))).toBe(
      'sandbox: no key "orgkey_nope": give its id, its prefix or the key itself (`sandbox keys list` or `sandbox org-keys list` lists them)',
    );
  });

  it('an unknown subcommand of a group is an unknown command, not "too many arguments" (a usage error: exit 2)', async () => {
    const r = await bare(['keys', 'bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sandbox: unknown command "keys bogus"; keys has: list, create, revoke (sandbox keys --help)\n');
  });

  it('--control-token too short names the flag', async () => {
    const r = await bare(['start', '--control-token', 'short', '--in-memory', '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain('--control-token must be at least 8 characters');
    expect(r.stderr).not.toContain('controlToken');
  });

  it('--clock-start that is not a time names the flag', async () => {
    const r = await bare(['start', '--clock-start', 'tomorrow', '--in-memory', '--port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain('--clock-start takes an ISO 8601 time such as 2026-01-15T09:00:00Z, not "tomorrow"');
  });

  it('snapshot export to a missing directory names it', async () => {
    expect(expectOneLineFailure(await t.cli(['snapshot', 'export', '/nonexistent-dir-15/state.json']))).toBe(
      'sandbox: cannot write /nonexistent-dir-15/state.json: the directory /nonexistent-dir-15 does not exist',
    );
  });

  it('snapshot import of a non-JSON file names the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-import-'));
    const notJson = join(dir, 'notes.txt');
    await writeFile(notJson, 'hello');
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"collections": ');
    expect(expectOneLineFailure(await t.cli(['snapshot', 'import', notJson]))).toBe(
      `sandbox: ${notJson} is not valid JSON (export one with \`sandbox snapshot export\`)`,
    );
    expect(expectOneLineFailure(await t.cli(['snapshot', 'import', broken]))).toContain(`${broken} is not valid JSON`);
  });

  it('scenario run against a stopped sandbox uses the standard line', async () => {
    expect(expectOneLineFailure(await bare(['scenario', 'run', 'sandbox-rate-limit', '--url', 'http://127.0.0.1:1']))).toMatch(
      /^sandbox: no sandbox is running at http:\/\/127\.0\.0\.1:1 \(connection refused\)/,
    );
  });

  it('a scenario step with a misspelt key names it and suggests the right one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-scenario-'));
    const file = join(dir, 'typo.json');
    await writeFile(
      file,
      JSON.stringify({ name: 'typo', description: 'x', steps: [{ request: { method: 'GET', path: '/v1/products' }, expcet: { status: 200 } }] }),
    );
    expect(expectOneLineFailure(await bare(['scenario', 'run', file]))).toBe(
      `sandbox: ${file}:1:93: steps[0] "GET /v1/products": unknown key "expcet" (did you mean "expect"?)`,
    );
  });

  it('a misspelt step kind names the key, suggests the kind and lists the kinds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-scenario-'));
    const file = join(dir, 'typo.json');
    await writeFile(file, JSON.stringify({ name: 'typo', description: 'x', steps: [{ name: 'list', reqest: { method: 'GET', path: '/v1/products' } }] }));
    expect(expectOneLineFailure(await bare(['scenario', 'run', file]))).toBe(
      `sandbox: ${file}:1:58: steps[0] "list": unknown key "reqest" (did you mean "request"?); a step has one of: request, control, receiver, waitForDelivery, repeat`,
    );
  });

  it('an empty --fixtures directory is refused', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-empty-fixtures-'));
    expect(expectOneLineFailure(await bare(['start', '--fixtures', dir, '--in-memory', '--port', '0']))).toMatch(
      new RegExp(`^sandbox: --fixtures ${dir} defines no workspace`),
    );
  });
});
