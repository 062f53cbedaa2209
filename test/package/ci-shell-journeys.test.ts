import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../../src/cli/lifecycle.ts';
import { installedProject } from './packed.ts';

/**
 * From the packed tarball as a user gets it: a
 * shell-only CI run (start --detach, curl, stop, the data kept), and the
 * GitHub Action (action.yml) with its steps run in bash, GitHub's files
 * (GITHUB_OUTPUT, GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY) pointing at
 * temporary files.
 */
const root = join(import.meta.dirname, '..', '..');
const KEY = 'tcs_test_borealis_full_00000000000000000001';

let work: string;
let tarball: string;
let project: string;
const pids: number[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tcs-ci-journeys-'));
  ({ tarball, project } = await installedProject(work));
}, 600_000);

afterAll(() => {
  for (const pid of pids) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

/** bash -c `script` in `cwd`; its exit code and output. */
function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a shell-only CI run, from the tarball in a fresh project', { timeout: 300_000 }, () => {
  it('start --detach, curl against it, sandbox stop: exit 0 throughout, and the data survives', async () => {
    // what a Makefile or a GitLab job would run; SANDBOX_* configure the start
    const script = `
      ready="$(npx sandbox start --detach --json)"
      url="$(READY="$ready" node -p 'JSON.parse(process.env.READY).url')"
      echo "pid=$(READY="$ready" node -p 'JSON.parse(process.env.READY).pid')"
      npx sandbox wait --url "$url" --timeout 30s
      curl -sf -X POST "$url/v1/gallery/folders" -H "Authorization: Bearer ${KEY}" -H 'Content-Type: application/json' -d '{"name":"made by curl"}' > folder.json
      npx sandbox stop --url "$url"
    `;
    const r = await bash(script, project, { SANDBOX_PORT: '0', SANDBOX_DATA: 'ci/db.json', SANDBOX_NO_RATE_LIMITS: '1' });
    const pid = Number(/pid=(\d+)/.exec(r.stdout)?.[1]);
    if (pid) pids.push(pid);
    expect(r.stderr).toBe('');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/the sandbox at http:\/\/127\.0\.0\.1:\d+ is ready/);
    expect(r.stdout).toContain(`(process ${pid} has exited; its data is flushed)`);
    expect(isRunning(pid)).toBe(false);
    const folder = (JSON.parse(readFileSync(join(project, 'folder.json'), 'utf8')) as { data: { id: string } }).data;
    expect(readFileSync(join(project, 'ci/db.json'), 'utf8')).toContain(folder.id);
    expect(readFileSync(join(project, 'ci/db.json.log'), 'utf8')).toContain('"stopped":true');

    // started again on the same file, it serves what the first run wrote
    const again = await bash(
      `
      ready="$(npx sandbox start --detach --json --port 0 --data ci/db.json)"
      url="$(READY="$ready" node -p 'JSON.parse(process.env.READY).url')"
      curl -sf "$url/__sandbox/state" | grep -c 'made by curl'
      npx sandbox stop --url "$url" > /dev/null
    `,
      project,
    );
    expect(again).toMatchObject({ code: 0, stderr: '', stdout: '1\n' });
  });
});

/** The few shapes action.yml uses: inputs with defaults, and steps with id, env and a `run: |` block. */
interface Step {
  name: string;
  id?: string;
  env: Record<string, string>;
  run: string;
  shell?: string;
}
function readAction(): { inputs: Record<string, string>; outputs: Record<string, string>; steps: Step[]; using: string } {
  const text = readFileSync(join(root, 'action.yml'), 'utf8');
  const section = (name: string, indent: number) => {
    const start = text.indexOf(`\n${' '.repeat(indent - 2)}${name}:\n`);
    const body = text.slice(start + name.length + indent).split('\n');
    const end = body.findIndex((line) => line.trim() !== '' && !line.startsWith(' '.repeat(indent)));
    return body.slice(0, end === -1 ? undefined : end);
  };
  const mapOf = (lines: string[], field: string) => {
    const out: Record<string, string> = {};
    let current = '';
    for (const line of lines) {
      const key = /^ {2}([\w-]+):$/.exec(line);
      if (key) current = key[1]!;
      const value = new RegExp(`^ {4}${field}: (.*)$`).exec(line);
      if (value && current) out[current] = value[1]!.replace(/^(['"])(.*)\1$/, '$2'); // YAML quotes either way
    }
    return out;
  };
  const steps: Step[] = [];
  const lines = section('steps', 4);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('    - name: ')) steps.push({ name: line.slice(12), env: {}, run: '' });
    const step = steps.at(-1)!;
    const field = /^ {6}(id|shell): (.*)$/.exec(line);
    if (field) step[field[1] as 'id' | 'shell'] = field[2]!;
    const env = /^ {8}(\w+): (.*)$/.exec(line);
    if (env && !step.run) step.env[env[1]!] = env[2]!;
    if (line === '      run: |') {
      const body: string[] = [];
      while (i + 1 < lines.length && (lines[i + 1]!.startsWith('        ') || lines[i + 1] === '')) body.push(lines[++i]!.slice(8));
      step.run = `${body.join('\n').trimEnd()}\n`;
    }
  }
  return {
    inputs: mapOf(section('inputs', 2), 'default'),
    outputs: mapOf(section('outputs', 2), 'value'),
    steps,
    using: /^ {2}using: (\w+)$/m.exec(text)![1]!,
  };
}

/** GITHUB_OUTPUT / GITHUB_ENV lines, name=value */
const keyValues = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

describe('the GitHub Action, its steps run in bash', { timeout: 300_000 }, () => {
  it('installs the tarball, starts the sandbox detached and waits; exposes its URL, keys and inspector as outputs and env; a later step reaches it and stops it', async () => {
    const action = readAction();
    expect(action.using).toBe('composite');
    expect(action.inputs).toMatchObject({ version: 'latest', path: '', port: '4010', args: '' });
    for (const step of action.steps) {
      expect(step.shell, step.name).toBe('bash');
      expect(step.run, `${step.name}: expressions go through env, never into the script`).not.toContain('${{');
    }

    const runner = mkdtempSync(join(work, 'runner-'));
    const files = { GITHUB_OUTPUT: 'output', GITHUB_ENV: 'env', GITHUB_PATH: 'path', GITHUB_STEP_SUMMARY: 'summary' };
    const github = Object.fromEntries(Object.entries(files).map(([name, file]) => [name, join(runner, file)]));
    for (const file of Object.values(github)) writeFileSync(file, '');
    const inputs: Record<string, string> = { ...action.inputs, path: tarball, port: '0', args: '--no-rate-limits --clock manual' };
    const outputs: Record<string, Record<string, string>> = {};
    const expression = (text: string) =>
      text.replace(/\$\{\{ (inputs|steps)\.([\w-]+)(?:\.outputs\.([\w-]+))? \}\}/g, (_, kind: string, name: string, output: string) =>
        kind === 'inputs' ? inputs[name]! : outputs[name]![output]!,
      );
    for (const step of action.steps) {
      writeFileSync(github.GITHUB_OUTPUT!, '');
      const env = Object.fromEntries(Object.entries(step.env).map(([name, value]) => [name, expression(value)]));
      const r = await bash(step.run, project, { ...github, RUNNER_TEMP: runner, ...env });
      expect(r.code, `${step.name}\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (step.id) outputs[step.id] = keyValues(github.GITHUB_OUTPUT!);
    }

    const out = outputs.start!;
    pids.push(Number(out.pid));
    const env = keyValues(github.GITHUB_ENV!);
    expect(out.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env).toMatchObject({
      SANDBOX_URL: out.url,
      SANDBOX_API_KEY: KEY,
      SANDBOX_CONTROL_URL: `${out.url}/__sandbox`,
      SANDBOX_INSPECTOR_URL: `${out.url}/__sandbox/ui/`,
      SANDBOX_PID: out.pid,
    });
    expect(out['api-key']).toBe(KEY);
    expect(out['api-key-id']).toMatch(/^wkey_/);
    expect(env.SANDBOX_API_KEY_ID).toBe(out['api-key-id']);
    expect(out['live-api-key']).toMatch(/^tcs_live_/);
    expect(out['inspector-url']).toBe(`${out.url}/__sandbox/ui/`);
    expect(out['control-token']).toBe(''); // loopback: no token, and no SANDBOX_CONTROL_TOKEN for later steps
    expect(env.SANDBOX_CONTROL_TOKEN).toBeUndefined();
    expect((JSON.parse(out.keys!) as { keys: unknown[] }[]).length).toBeGreaterThan(0);
    // the action's outputs are the start step's
    for (const [name, value] of Object.entries(action.outputs)) expect(value, name).toBe(`\${{ steps.start.outputs.${name} }}`);
    expect(Object.keys(out).sort()).toEqual(Object.keys(action.outputs).sort());
    expect(readFileSync(github.GITHUB_STEP_SUMMARY!, 'utf8')).toContain(`Serving ${out.url} for this job`);

    // a later step: GITHUB_PATH and GITHUB_ENV as GitHub applies them; `inputs.args` reached the start
    const later = { ...env, PATH: `${readFileSync(github.GITHUB_PATH!, 'utf8').trim()}:${process.env.PATH}` };
    const clock = await bash('curl -sf "$SANDBOX_URL/__sandbox/clock"', runner, later);
    expect(JSON.parse(clock.stdout).data.mode).toBe('manual');
    // the key's id is the one the control plane lists for that key
    const listed = await bash('curl -sf "$SANDBOX_URL/__sandbox/workspaces"', runner, later);
    const keys = (JSON.parse(listed.stdout) as { data: { keys: { id: string; key: string }[] }[] }).data.flatMap((w) => w.keys);
    expect(keys.find((k) => k.id === env.SANDBOX_API_KEY_ID)?.key).toBe(KEY);
    // the README's last step: the report as JUnit, and as Markdown in the job summary
    const products = await bash(
      'curl -sf "$SANDBOX_URL/v1/products?limit=1" -H "Authorization: Bearer $SANDBOX_API_KEY" > /dev/null && sandbox stop --report sandbox-report.xml --report-format junit',
      runner,
      { ...later, GITHUB_STEP_SUMMARY: github.GITHUB_STEP_SUMMARY! },
    );
    expect(products.code, products.stderr).toBe(0);
    expect(products.stderr).toContain('report: sandbox-report.xml (junit)\n');
    expect(products.stdout).toBe(`stopped the sandbox at ${out.url} (process ${out.pid} has exited; its data is flushed)\n`);
    expect(readFileSync(join(runner, 'sandbox-report.xml'), 'utf8')).toContain('<testsuite name="sandbox /v1 operations"');
    const summary = readFileSync(github.GITHUB_STEP_SUMMARY!, 'utf8');
    expect(summary).toContain('### Sandbox run report: sandbox stop\n');
    expect(summary).toContain('**1 request** to /v1 (200 ×1)');
  });
});
