import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NESTED_VITEST_CACHE } from './nested-vitest-cache.ts';

/**
 * No silent skips: without Chromium (here a CHROMIUM_PATH that does not exist), a run
 * of a browser file passes with its tests skipped and says so in one line, with the command that
 * installs it; under CI the same run fails. The run holds a property test too (a file below CI's
 * depth, test/setup/depth.ts): a local run says so in one line, a CI run runs it in full and says nothing.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

function vitest(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [VITEST, 'run', 'test/security/browser.test.ts', 'test/fixtures/sample.test.ts', ...NESTED_VITEST_CACHE], {
      cwd: ROOT,
      // TEST_DEPTH off too: .ci/run exports TEST_DEPTH=full, which would hide the local depth's line
      env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium', NO_COLOR: '1', CI: '', TEST_DEPTH: '', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('a run without Chromium', () => {
  it('skips the browser tests and names them in one line, with the command that installs it', async () => {
    const { code, output } = await vitest({});
    expect(code, output).toBe(0);
    const lines = output.split('\n').filter((line) => line.includes('apt-get install -y chromium'));
    expect(lines, output).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^SKIPPED [1-9]\d* browser tests \(test\/security\/browser\.test\.ts\): Chromium is missing \(\/nonexistent\/chromium\); install it: apt-get install -y chromium$/,
    );
    expect(
      output.split('\n').filter((line) => line.startsWith('DEPTH local: ')),
      output,
    ).toHaveLength(1);
  }, 120_000);

  it('fails under CI', async () => {
    const { code, output } = await vitest({ CI: 'true' });
    expect(code, output).toBe(1);
    expect(output).toContain(
      'Chromium is missing (/nonexistent/chromium); install it: apt-get install -y chromium (CI is set, so the browser tests fail rather than skip)',
    );
    expect(output).not.toContain('DEPTH local');
  }, 120_000);
});
