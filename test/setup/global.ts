import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { TestProject } from 'vitest/node';
import { BROWSER_FILES, listed } from '../tiers.ts';
import { HAS_CHROMIUM, missingChromium } from './chromium.ts';
import { depthNotice } from './depth.ts';

/**
 * The run's global setup, in vitest's main process:
 *
 * - No orphans. Every process the tests start inherits SANDBOX_TEST_RUN, which
 *   names this run (space-separated, as a run started by a test adds its own).
 *   test/setup/reaper.mjs, in a session of its own, holds a pipe from this
 *   process; when the pipe closes (the run's end, or vitest interrupted or
 *   killed) it stops every process marked with this run: a `start --detach`
 *   daemon, a sandbox under npx, Chromium and the rest, even those that left
 *   the process group a Ctrl+C reaches.
 *   When vitest's parent (npm, the shell) dies, vitest stops too (watchParent).
 * - One scratch folder per run (SANDBOX_TEST_RUN_DIR), for what files share (the packed
 *   tarball: test/package/packed.ts); the reaper removes it.
 * - No silent skips. Without Chromium, the end of the run names the browser
 *   tests it skipped and the command that installs it (under CI they fail:
 *   test/setup/chromium.ts).
 *
 * Each project runs the global setup; the first one does the work.
 */
interface RunState {
  reaper: ChildProcess;
  reported: boolean;
  /** whether the end of the run said the seeded files ran the local depth */
  depthReported: boolean;
  /** the run's scratch folder (SANDBOX_TEST_RUN_DIR): what files share, such as the packed tarball */
  dir: string;
}
const KEY = Symbol.for('travel-commerce-sandbox.test-run');
const slot = globalThis as { [KEY]?: RunState };

export default function setup(project: TestProject): () => Promise<void> {
  const run = slot[KEY] ?? start();
  return async () => {
    if (slot[KEY] !== run) return; // torn down already
    reportSkippedBrowserTests(project, run);
    reportLocalDepth(project, run);
    slot[KEY] = undefined;
    run.reaper.stdin?.end();
    if (run.reaper.exitCode === null) await once(run.reaper, 'exit'); // it removes the scratch folder too
  };
}

function start(): RunState {
  const id = randomBytes(6).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `sandbox-test-run-${id}-`));
  // spawned before the mark is set: the reaper is no process of the run's
  const reaper = spawn(process.execPath, [new URL('./reaper.mjs', import.meta.url).pathname, id, String(process.pid), dir], {
    detached: true,
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  reaper.unref();
  (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  process.env.SANDBOX_TEST_RUN = [process.env.SANDBOX_TEST_RUN, id].filter(Boolean).join(' ');
  process.env.SANDBOX_TEST_RUN_DIR = dir;
  watchParent();
  const run = { reaper, reported: false, depthReported: false, dir };
  slot[KEY] = run;
  return run;
}

/**
 * A SIGTERM to `npm test` reaches npm and the shell it runs vitest in, not vitest, which ran on
 * with its processes. Vitest's parent gone (it was reparented), it takes the signal itself; the
 * reaper then does the rest.
 */
function watchParent(): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, 500);
  timer.unref();
}

/**
 * One line, once per run that ran a file below CI's depth: a file that imports test/setup/depth.ts
 * (the chaos and fuzz files, the property tests). Read from the files' text, so a new such file
 * needs no list.
 */
function reportLocalDepth(project: TestProject, run: RunState): void {
  const notice = depthNotice();
  if (!notice || run.depthReported) return;
  const seeded = project.vitest.state.getFiles().some((file) => readFileSync(file.filepath, 'utf8').includes("/setup/depth.ts'"));
  if (!seeded) return;
  run.depthReported = true;
  process.stderr.write(`\n${notice}\n`);
}

/** One line, once per run: which browser tests were skipped for want of Chromium. */
function reportSkippedBrowserTests(project: TestProject, run: RunState): void {
  if (HAS_CHROMIUM || run.reported) return;
  run.reported = true;
  const root = project.vitest.config.root;
  const files = project.vitest.state.getFiles().filter((file) => listed(relative(root, file.filepath).split('\\').join('/'), BROWSER_FILES));
  const count = (tasks: readonly { type: string; mode: string; tasks?: unknown }[]): number =>
    tasks.reduce((sum, task) => sum + (task.type === 'test' ? (task.mode === 'skip' ? 1 : 0) : count((task.tasks ?? []) as never)), 0);
  const skipped = files.map((file) => ({ name: relative(root, file.filepath), n: count(file.tasks) })).filter((f) => f.n > 0);
  if (skipped.length === 0) return;
  const total = skipped.reduce((sum, f) => sum + f.n, 0);
  process.stderr.write(`\nSKIPPED ${total} browser tests (${skipped.map((f) => f.name).join(', ')}): ${missingChromium()}\n`);
}
