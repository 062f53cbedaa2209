import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBundle } from '../setup/bundle.ts';

export const BIN = fileURLToPath(new URL('../../bin/sandbox.js', import.meta.url));

/**
 * A bound on how long a wait for output may take before it fails, well under the
 * test timeout so the failure names what was printed. Not a timing assertion.
 */
export const OUTPUT_DEADLINE_MS = 20_000;

/**
 * Resolves once stdout contains `text` (anywhere in what the process has
 * printed, so text printed before the call counts). Rejects, with what stdout
 * and stderr did contain, when the process exits first or `deadlineMs` passes.
 */
export function waitForStdout(run: Running, text: string, deadlineMs = OUTPUT_DEADLINE_MS): Promise<void> {
  return waitForOutput(run, 'stdout', text, deadlineMs);
}

/** waitForStdout, for stderr (where `listen --json` prints its banner). */
export function waitForStderr(run: Running, text: string, deadlineMs = OUTPUT_DEADLINE_MS): Promise<void> {
  return waitForOutput(run, 'stderr', text, deadlineMs);
}

function waitForOutput(run: Running, stream: 'stdout' | 'stderr', text: string, deadlineMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      done();
      const { stdout, stderr } = run.output();
      reject(new Error(`${stream} never contained ${JSON.stringify(text)}: ${why}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    };
    const check = () => {
      if (!run.output()[stream].includes(text)) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => fail(`still missing after ${deadlineMs} ms`), deadlineMs);
    const done = () => {
      clearTimeout(timer);
      run.child[stream].off('data', check);
    };
    run.child[stream].on('data', check);
    void run.exit.then(({ code, signal }) => {
      check(); // the last chunk and 'close' may come together
      fail(`the process exited (${signal ?? `code ${code}`})`);
    });
    check();
  });
}

export interface Running {
  child: ChildProcessWithoutNullStreams;
  /** resolves with the first stdout line */
  firstLine: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** everything printed so far */
  output(): { stdout: string; stderr: string };
}

/** Spawns `node bin/sandbox.js ...args` with no colour and collects its output; the bundle is rebuilt first if src/ is newer. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Running {
  if (!env.SANDBOX_FROM_SOURCE) ensureBundle();
  return runNode([BIN, ...args], env, cwd);
}

/** Spawns `node ...args` with no colour and collects its output. */
export function runNode(args: string[], env: Record<string, string> = {}, cwd?: string): Running {
  // GITHUB_STEP_SUMMARY off: on GitHub Actions, `exec` under test would append to the real job summary
  const child = spawn(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', GITHUB_STEP_SUMMARY: '', ...env }, ...(cwd ? { cwd } : {}) });
  let stdout = '';
  let stderr = '';
  let resolveLine: (line: string) => void;
  const firstLine = new Promise<string>((resolve) => (resolveLine = resolve));
  // registered before any waitForStdout listener, so `stdout` is complete when those run
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const nl = stdout.indexOf('\n');
    if (nl !== -1) resolveLine(stdout.slice(0, nl));
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      resolveLine(stdout);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, firstLine, exit, output: () => ({ stdout, stderr }) };
}
