import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli, type Running } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';

/**
 * The stop action (stop/action.yml, docs/cli.md "The failure bundle"): its bash step run as GitHub
 * runs it, with GITHUB_OUTPUT and GITHUB_STEP_SUMMARY in temporary files and `sandbox` on the PATH,
 * against a sandbox started as the main action starts one. A failed job gets the bundle, named in
 * the step's output for the upload step, and a job summary that says how to open it.
 */
const root = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(root, 'stop', 'action.yml'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'action-stop-'));
const running: Running[] = [];

afterAll(async () => {
  for (const run of running) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** The `run: |` block of the step named `name`, as bash gets it. */
function script(name: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(`    - name: ${name}`);
  const run = lines.findIndex((line, i) => i > start && line === '      run: |');
  const body: string[] = [];
  for (let i = run + 1; i < lines.length && (lines[i]!.startsWith('        ') || lines[i] === ''); i++) body.push(lines[i]!.slice(8));
  return `${body.join('\n').trimEnd()}\n`;
}

function bash(body: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    // as GitHub runs a `shell: bash` step
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', body], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** A sandbox as the main action leaves one for later steps: started, its URL in SANDBOX_URL; a failing request made. */
type JobEnv = { SANDBOX_URL: string; PATH: string; GITHUB_OUTPUT: string; GITHUB_STEP_SUMMARY: string };
async function jobWithSandbox(): Promise<{ dir: string; env: JobEnv; run: Running }> {
  const run = runCli(['start', '--in-memory', '--port', '0', '--json']);
  running.push(run);
  const url = (JSON.parse(await run.firstLine) as { url: string }).url;
  await fetch(`${url}/v1/bookings/book_00000000-0000-4000-8000-000000000001`, { headers: { authorization: `Bearer ${KEYS.sandboxFull}` } });
  const dir = mkdtempSync(join(work, 'job-'));
  writeFileSync(join(dir, 'sandbox'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(dir, 'sandbox'), 0o755);
  const env = { SANDBOX_URL: url, PATH: `${dir}:${process.env.PATH}`, GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary') };
  writeFileSync(env.GITHUB_OUTPUT, '');
  writeFileSync(env.GITHUB_STEP_SUMMARY, '');
  return { dir, env, run };
}

const INPUTS = { INPUT_BUNDLE: 'sandbox-bundle.json.gz', INPUT_BUNDLE_WHEN: 'failure', INPUT_REPORT: 'sandbox-report.xml' };

describe('the stop action', { timeout: 120_000 }, () => {
  it('uploads what its stop step wrote, only then', () => {
    expect(text).toMatch(/- name: Upload the failure bundle\n\s+if: steps\.stop\.outputs\.bundle != ''\n\s+uses: actions\/upload-artifact@v4/);
    expect(text).toContain(`path: $\{{ steps.stop.outputs.bundle }}`);
    expect(script('Stop the sandbox'), 'expressions go through env, never into the script').not.toContain('${{');
  });

  it('on a failed job: stops the sandbox, writes the report and the bundle, names it for the upload, and the summary says how to open it', async () => {
    const { dir, env, run } = await jobWithSandbox();
    const r = await bash(script('Stop the sandbox'), dir, { ...env, ...INPUTS, INPUT_JOB_STATUS: 'failure' });
    expect(r.code, r.stderr).toBe(0);
    expect((await run.exit).code).toBe(0);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe('bundle=sandbox-bundle.json.gz\n');
    expect(existsSync(join(dir, 'sandbox-bundle.json.gz'))).toBe(true);
    expect(existsSync(join(dir, 'sandbox-report.xml'))).toBe(true);
    const summary = readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8');
    expect(summary).toContain('### Sandbox run report: sandbox stop');
    expect(summary).toContain('npx sandbox open sandbox-bundle.json.gz');
  });

  it('on a job that passed: stops the sandbox and writes no bundle', async () => {
    const { dir, env, run } = await jobWithSandbox();
    const r = await bash(script('Stop the sandbox'), dir, { ...env, ...INPUTS, INPUT_REPORT: '', INPUT_JOB_STATUS: 'success' });
    expect(r.code, r.stderr).toBe(0);
    expect((await run.exit).code).toBe(0);
    expect(readFileSync(env.GITHUB_OUTPUT, 'utf8')).toBe('');
    expect(existsSync(join(dir, 'sandbox-bundle.json.gz'))).toBe(false);
  });
});
