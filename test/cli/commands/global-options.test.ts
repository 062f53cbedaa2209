import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { json, useSandbox } from './harness.ts';

/**
 * The global options (--url, --token, --workspace, --json, --no-color) where a user puts them:
 * before the command name or after it (docs/cli.md, "Scripting a running sandbox"). The
 * sandbox is found only through --url: $SANDBOX_URL points nowhere, so a command that ignored an
 * --url before its name would fail to connect instead of passing.
 */
const t = useSandbox();
const nowhere = { SANDBOX_URL: 'http://127.0.0.1:1' };
const cli = (args: string[]) => runCliInProcess(args, nowhere);

describe('global options before or after the command name', () => {
  it('--url and --json before the command name reach it, as after it', async () => {
    const before = await cli(['--url', t.sandbox.url, '--json', 'clock']);
    expect(before.stderr).toBe('');
    expect(before.code).toBe(0);
    const after = await cli(['clock', '--url', t.sandbox.url, '--json']);
    expect(json(before)).toEqual(json(after));
    expect(json(before)).toMatchObject({ mode: 'manual' });

    // a subcommand of a group, and --url=<value>
    const advanced = await cli([`--url=${t.sandbox.url}`, 'clock', 'advance', '1m', '--json']);
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(json(advanced)).toMatchObject({ mode: 'manual' });
  });

  it('--workspace before the command name picks the workspace, by part of its name', async () => {
    const live = t.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const r = await cli(['--workspace', 'aurora', '--url', t.sandbox.url, 'keys', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(json<{ id: string }[]>(r).map((w) => w.id)).toEqual([live.id]);
  });

  it('a command that does not take one refuses it, wherever it stands: one line, exit 2', async () => {
    const clock = await cli(['--workspace', 'aurora', '--url', t.sandbox.url, 'clock']);
    expect(clock.code).toBe(2);
    expect(clock.stderr).toBe('sandbox: unknown option "--workspace" for "sandbox clock show" (sandbox clock show --help)\n');

    const openapi = await cli(['--url', t.sandbox.url, 'openapi']);
    expect(openapi.code).toBe(2);
    expect(openapi.stderr).toBe('sandbox: unknown option "--url" for "sandbox openapi" (sandbox openapi --help)\n');
    expect(openapi.stdout).toBe('');
  });

  it('an unknown subcommand is named as such with a global option in front', async () => {
    const r = await cli(['--json', 'keys', 'bogus']);
    expect(r.stderr).toBe('sandbox: unknown command "keys bogus"; keys has: list, create, revoke (sandbox keys --help)\n');
    expect(r.code).toBe(2);
  });
});
