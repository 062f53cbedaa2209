import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { runCliInProcess as cli } from '../../helpers/cli-in-process.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('sandbox openapi, --version and help', () => {
  it('prints the OpenAPI document without a running sandbox, or writes it with --out', async () => {
    const printed = await cli(['openapi']);
    expect(printed.code).toBe(0);
    const doc = JSON.parse(printed.stdout) as { openapi: string; paths: Record<string, unknown> };
    // the document as served, byte for byte: the bound on its size (test/openapi/tools.test.ts) holds for the file too
    const served = await (await import('../../../src/index.ts')).createSandbox({ listen: false, storage: 'memory', clock: 'manual' });
    try {
      await served.context.controlPlane.ready();
      expect(printed.stdout).toBe(`${(await served.app.inject({ url: '/__sandbox/openapi.json' })).body}\n`);
    } finally {
      await served.stop();
    }
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.paths['/v1/bookings']).toBeDefined();
    const out = join(mkdtempSync(join(tmpdir(), 'tcs-openapi-')), 'openapi.json');
    const written = await cli(['openapi', '--out', out]);
    expect(written.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(doc);
  });

  it('names the file in one line when --out cannot be written', async () => {
    const run = await cli(['openapi', '--out', '/nonexistent-dir/openapi.json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('sandbox: cannot write /nonexistent-dir/openapi.json: no such file or directory\n');
  });

  it('answers --version, -V and help <command> like the tools people know', async () => {
    for (const flag of ['--version', '-V']) {
      const run = await cli([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${pkg.version}\n`);
    }
    const help = await cli(['help', 'start']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sandbox start');
  });

  // the bin itself: its exit codes as a shell sees them
  it('exits 2 on a command line of the wrong form, 1 on a bad value, and takes --no-color anywhere', async () => {
    const unknownOption = await runCli(['start', '--bogus']).exit;
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toBe('sandbox: unknown option "--bogus" for "sandbox start" (sandbox start --help)\n');
    expect((await runCli(['bogus']).exit).code).toBe(2);
    expect((await runCli(['start', '--port', 'abc']).exit).code).toBe(1);
    const plain = await runCli(['openapi', '--no-color'], { NO_COLOR: '' }).exit;
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(/\u001b\[/);
  });
});
