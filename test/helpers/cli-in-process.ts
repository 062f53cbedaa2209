import { setFlagsFromString } from 'node:v8';
import { main } from '../../src/cli/main.ts';
import { releaseYoungGenerationCap } from '../../src/cli/young-generation.ts';

/** What a run of the CLI left: its exit code and everything it printed. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** process.exit, as the in-process run sees it: the end of the run. */
class ProcessExit extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

type Write = typeof process.stdout.write;
let busy = false;

/**
 * Runs `sandbox ...args` inside this process, through the CLI's own entry
 * (`main` of src/cli/main.ts: the same commander program, the same error lines
 * and exit-code mapping as the bin), without paying for a Node start and a
 * module graph load per command. While it runs, writes to process.stdout and
 * process.stderr are captured and process.exit ends the run with its code:
 * whatever the CLI would print after exiting is dropped, as a real exit would.
 * NO_COLOR is set, as runCli does; env changes are undone afterwards.
 *
 * For commands that finish on their own against a running sandbox. Long-running
 * commands (start, exec, listen, logs --follow) and signals stay spawn tests
 * (test/helpers/cli.ts).
 */
export async function runCliInProcess(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  if (busy) throw new Error('one in-process CLI run at a time: it captures the process-wide stdout and stderr');
  busy = true;
  const out = { stdout: '', stderr: '' };
  let code: number | null = null;
  const saved = { stdout: process.stdout.write, stderr: process.stderr.write, exit: process.exit, exitCode: process.exitCode, env: { ...process.env } };
  const stdoutErrorListeners = process.stdout.listeners('error');
  const capture = (stream: 'stdout' | 'stderr'): Write =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      if (code === null) out[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as () => void)());
      return true;
    }) as Write;
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  process.exit = ((exitCode?: number | string | null) => {
    code ??= Number(exitCode ?? process.exitCode ?? 0);
    throw new ProcessExit(code);
  }) as typeof process.exit;
  process.exitCode = undefined;
  Object.assign(process.env, { NO_COLOR: '1', ...env });
  try {
    await main(['node', 'sandbox', ...args]);
    code ??= Number(process.exitCode ?? 0);
  } catch (err) {
    if (!(err instanceof ProcessExit)) throw err; // main lets nothing else out: a bug in the CLI
  } finally {
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    for (const name of Object.keys(process.env)) if (!(name in saved.env)) delete process.env[name];
    Object.assign(process.env, saved.env);
    // main() listens for EPIPE on stdout once per run
    for (const listener of process.stdout.listeners('error')) {
      if (!stdoutErrorListeners.includes(listener)) process.stdout.off('error', listener as () => void);
    }
    // `start` and `exec` tune V8's heap for a process of their own (src/cli/young-generation.ts);
    // V8's defaults come back, or every later test file of this worker pays for many more GCs
    setFlagsFromString('--heap-growing-percent=0');
    releaseYoungGenerationCap(); // also stops watching GCs
    busy = false;
  }
  return { code, ...out };
}
