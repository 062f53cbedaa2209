import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/sandbox.js', import.meta.url));

/** Resolves once stdout contains `text`. */
export function waitForStdout(run: Running, text: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    run.child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) resolve();
    });
    void run.exit.then(() => resolve());
  });
}

export interface Running {
  child: ChildProcessWithoutNullStreams;
  /** resolves with the first stdout line */
  firstLine: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/** Spawns `node bin/sandbox.js ...args` with no colour and collects its output. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Running {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, ...(cwd ? { cwd } : {}) });
  let stdout = '';
  let stderr = '';
  let resolveLine: (line: string) => void;
  const firstLine = new Promise<string>((resolve) => (resolveLine = resolve));
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
  return { child, firstLine, exit };
}
