import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { identityOf, isAnotherProcess, parseIdentity, type ProcessIdentity } from '../storage/index.ts';

/**
 * What `sandbox start --detach` leaves behind for `sandbox stop` (docs/cli.md, "In the
 * background"): the sandboxes it started from this folder, in .sandbox/detached.json beside the
 * default data file. A bare `stop` stops the one recorded here, and only it: never whatever
 * answers on the default port, which may be another project's sandbox.
 *
 * A recorded sandbox counts as running while its process does: the pid alone is not enough, as
 * after a kill -9 it may be handed to another process, so the process's identity is recorded too
 * and checked as the data file's lock checks its holder (src/storage/process-identity.ts).
 */
import { DETACHED_RECORD } from './detached-path.ts';

export { DETACHED_RECORD };

export interface DetachedSandbox {
  url: string;
  pid: number;
  /** the process's identity when it was recorded (undefined where it cannot be read) */
  identity?: ProcessIdentity;
  log: string;
  /** the data file, absolute; null in memory */
  data: string | null;
  startedAt: string;
}

const recordPath = (): string => resolve(DETACHED_RECORD);

/** Every sandbox recorded for this folder, running or not; none when there is no record or it cannot be read. */
function readRecord(): DetachedSandbox[] {
  let text: string;
  try {
    text = readFileSync(recordPath(), 'utf8');
  } catch {
    return [];
  }
  try {
    const value = JSON.parse(text) as { sandboxes?: unknown };
    if (!Array.isArray(value.sandboxes)) return [];
    return value.sandboxes.flatMap((entry: Partial<DetachedSandbox>) =>
      typeof entry?.url === 'string' && Number.isSafeInteger(entry.pid) ? [{ ...(entry as DetachedSandbox), identity: parseIdentity(entry.identity) }] : [],
    );
  } catch {
    return []; // a file cut short or edited by hand records nothing: a bare stop then says so
  }
}

/** Writes the record whole (a temporary file renamed over it), or removes it when nothing is left. */
function writeRecord(sandboxes: readonly DetachedSandbox[]): void {
  const path = recordPath();
  if (sandboxes.length === 0) return rmSync(path, { force: true });
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ sandboxes }, null, 2)}\n`);
  renameSync(temporary, path);
}

/** A process that exists and is not a zombie (one whose parent has not reaped it has exited all the same). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): kill's answer stands
  }
}

const stillRunning = (entry: DetachedSandbox): boolean => isRunning(entry.pid) && !isAnotherProcess(entry.pid, entry.identity);

/** Records a sandbox `start --detach` started (process `pid`, answering at `url`), replacing any earlier one at that URL. */
export function recordDetached(entry: Omit<DetachedSandbox, 'identity' | 'startedAt'>): void {
  const identity = identityOf(entry.pid) ?? undefined;
  const kept = readRecord().filter((s) => s.url !== entry.url && stillRunning(s));
  writeRecord([...kept, { ...entry, ...(identity ? { identity } : {}), startedAt: new Date().toISOString() }]);
}

/** The recorded sandboxes still running, and those gone (which leave the record now). */
export function detachedSandboxes(): { running: DetachedSandbox[]; gone: DetachedSandbox[] } {
  const all = readRecord();
  const running = all.filter(stillRunning);
  if (running.length !== all.length) writeRecord(running);
  return { running, gone: all.filter((s) => !running.includes(s)) };
}

/** Takes a stopped sandbox out of the record, with any other that has exited. */
export function forgetDetached(url: string): void {
  const all = readRecord();
  const kept = all.filter((s) => s.url !== url && stillRunning(s));
  if (kept.length !== all.length) writeRecord(kept);
}
