import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/**
 * Every child the bench starts is tracked here, so that none outlives the
 * bench: stopAll() in the run's finally, and a synchronous SIGKILL sweep on
 * process exit and on Ctrl+C for whatever is still alive.
 */
const live = new Set<Child>();

export interface Child {
  process: ChildProcess;
  /** last lines of stderr, for error messages */
  stderrTail(): string;
  /** resolves on exit; never rejects */
  exited: Promise<number | null>;
}

export function startChild(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  const proc = spawn(command, args, {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    tail.push(chunk);
    if (tail.length > 20) tail.shift();
  });
  const exited = new Promise<number | null>((resolve) => {
    proc.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    });
    proc.once('error', () => {
      live.delete(child);
      resolve(null);
    });
  });
  const child: Child = { process: proc, stderrTail: () => tail.join('').slice(-2000), exited };
  live.add(child);
  return child;
}

/** The first stdout line that parses as a JSON object (the --json banner), within timeoutMs. */
export async function firstJsonLine<T>(child: Child, timeoutMs: number): Promise<T> {
  const lines = createInterface({ input: child.process.stdout! });
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), timeoutMs);
  try {
    const found = (async () => {
      for await (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          return JSON.parse(line) as T;
        } catch {
          // not the JSON line: keep reading
        }
      }
      throw new Error(`child exited before printing its JSON line:\n${child.stderrTail()}`);
    })();
    const aborted = once(timer.signal, 'abort').then(() => {
      throw new Error(`no JSON line within ${timeoutMs} ms:\n${child.stderrTail()}`);
    });
    found.catch(() => undefined); // a late failure after the timeout is not news
    return await Promise.race([found, aborted]);
  } finally {
    clearTimeout(timeout);
    lines.close();
    // keep draining stdout so a chatty child never blocks on a full pipe
    child.process.stdout?.resume();
  }
}

/** SIGTERM (the sandbox flushes and exits), then SIGKILL after graceMs. */
export async function stopChild(child: Child, graceMs = 5000): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((child) => stopChild(child)));
}

export const liveChildren = (): number => live.size;

function killAllNow(): void {
  for (const child of live) {
    try {
      child.process.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

/** Installs the last-resort sweep; call once from the entry point. */
export function installChildCleanup(): void {
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAllNow();
      process.exit(130);
    });
  }
}
