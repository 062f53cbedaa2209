import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('sandbox openapi, --version and help', () => {
  it('prints the OpenAPI document without a running sandbox, or writes it with --out', async () => {
    const printed = await runCli(['openapi']).exit;
    expect(printed.code).toBe(0);
    const doc = JSON.parse(printed.stdout) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.paths['/v1/bookings']).toBeDefined();
    const out = join(mkdtempSync(join(tmpdir(), 'tcs-openapi-')), 'openapi.json');
    const written = await runCli(['openapi', '--out', out]).exit;
    expect(written.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(doc);
  });

  it('names the file in one line when --out cannot be written', async () => {
    const run = await runCli(['openapi', '--out', '/nonexistent-dir/openapi.json']).exit;
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('sandbox: cannot write /nonexistent-dir/openapi.json: no such file or directory\n');
  });

  it('answers --version, -V and help <command> like the tools people know', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await runCli([flag]).exit;
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${pkg.version}\n`);
    }
    const help = await runCli(['help', 'start']).exit;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sandbox start');
  });
});
