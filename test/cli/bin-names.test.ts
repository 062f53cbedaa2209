import { readFile, symlink, mkdtemp } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.ts';

/** `npx sandbox` outside an install is another package, so the CLI has unambiguous names too. */
describe('the bin names', () => {
  it('package.json exposes sandbox, travel-commerce-sandbox and tcs-sandbox, all the same CLI', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; bin: Record<string, string> };
    expect(pkg.bin).toEqual({ sandbox: 'bin/sandbox.js', 'travel-commerce-sandbox': 'bin/sandbox.js', 'tcs-sandbox': 'bin/sandbox.js' });
    // `npx travel-commerce-sandbox` runs the bin named after the package
    expect(pkg.bin[pkg.name]).toBe('bin/sandbox.js');
  });

  it('runs when invoked through a link named tcs-sandbox, as npm installs it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-bin-'));
    await symlink(BIN, join(dir, 'tcs-sandbox'));
    const r = spawnSync(process.execPath, [join(dir, 'tcs-sandbox'), 'keys', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('workspace API keys');
  });

  it('the README shows npx travel-commerce-sandbox start for use without an install', async () => {
    expect(await readFile(new URL('../../README.md', import.meta.url), 'utf8')).toContain('npx travel-commerce-sandbox start');
  });
});
