import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NESTED_VITEST_CACHE } from './nested-vitest-cache.ts';

/**
 * No orphans: a vitest run interrupted in the middle of a test that
 * started a sandbox, a `start --detach` daemon, a process group of its own, a
 * receiver and Chromium leaves none of them behind. The run is a vitest of its
 * own (test/setup/orphans.vitest.config.ts: the suite's global setup and
 * test/setup/orphans.fixture.ts); every process it starts inherits ORPHAN_PROBE,
 * which is how this test finds what is left, wherever it was reparented to.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');

/** Whether `pid` runs (a zombie has ended: it waits for a parent to read it, which PID 1 of a container may never do). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

/** Processes (pid, command line) whose environment holds ORPHAN_PROBE=probe. */
function probed(probe: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`ORPHAN_PROBE=${probe}`)) continue;
      if (!running(Number(pid))) continue;
      found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').slice(0, 100)}`);
    } catch {
      /* gone meanwhile, or not ours */
    }
  }
  return found;
}

async function until<T>(get: () => T, done: (value: T) => boolean, what: string, ms = 60_000): Promise<T> {
  for (const end = Date.now() + ms; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const value = get();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`still waiting after ${ms} ms for ${what}: ${JSON.stringify(value)}`);
  }
}

/** Starts the fixture run, waits until its processes are up, sends `signal` (to the group: a Ctrl+C), and lists what is left. */
async function interrupted(
  signal: NodeJS.Signals,
  target: 'group' | 'vitest' | 'npm',
): Promise<{ left: string[]; started: { pids: number[]; browser: boolean }; output: string }> {
  const probe = randomBytes(6).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'orphans-'));
  const pidsFile = join(dir, 'pids.json');
  const command =
    target === 'npm'
      ? (['npm', ['test', '--', '--config', 'test/setup/orphans.vitest.config.ts', ...NESTED_VITEST_CACHE]] as const)
      : ([process.execPath, [VITEST, 'run', '--config', 'test/setup/orphans.vitest.config.ts', ...NESTED_VITEST_CACHE]] as const);
  const run = spawn(command[0], [...command[1]], {
    cwd: ROOT,
    detached: true, // a process group of its own, as `npm test` in a terminal has
    env: { ...process.env, ORPHAN_PROBE: probe, ORPHAN_PIDS_FILE: pidsFile, NO_COLOR: '1' },
  });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise((resolve) => run.on('close', resolve));
  try {
    await until(() => existsSync(pidsFile) || run.exitCode !== null, Boolean, `the fixture's processes (output so far: ${output})`);
    expect(run.exitCode, output).toBeNull();
    const started = JSON.parse(readFileSync(pidsFile, 'utf8')) as { pids: number[]; browser: boolean };
    expect(probed(probe).length, 'the fixture run and its processes carry the probe').toBeGreaterThan(started.pids.length);
    process.kill(target === 'group' ? -run.pid! : run.pid!, signal);
    // what was started goes on running if the interrupt did not stop the run: the list below shows it
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    const left = await until(
      () => probed(probe),
      (list) => list.length === 0,
      'the processes to be stopped',
      30_000,
    ).catch(() => probed(probe));
    return { left, started, output };
  } finally {
    for (const line of probed(probe)) process.kill(Number(line.split(' ')[0]), 'SIGKILL'); // a failing run leaves nothing either
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('an interrupted test run', () => {
  it('leaves no process behind after a Ctrl+C (SIGINT to its process group)', async () => {
    const { left, started, output } = await interrupted('SIGINT', 'group');
    expect(left, output).toEqual([]);
    expect(started.pids.filter(running), output).toEqual([]);
  }, 180_000);

  it('leaves no process behind after a SIGTERM to vitest alone', async () => {
    const { left, started, output } = await interrupted('SIGTERM', 'vitest');
    expect(left, output).toEqual([]);
    expect(started.pids.filter(running), output).toEqual([]);
  }, 180_000);

  it('leaves no process behind after a SIGTERM to `npm test` alone (npm and its shell die; vitest, reparented, follows)', async () => {
    const { left, started, output } = await interrupted('SIGTERM', 'npm');
    expect(left, output).toEqual([]);
    expect(started.pids.filter(running), output).toEqual([]);
  }, 180_000);
});
