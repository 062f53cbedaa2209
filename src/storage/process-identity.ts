/**
 * Who a pid names, beyond the pid itself (docs/storage.md, "Lock"). After
 * kill -9 the pid in a lock file can be handed to an unrelated process, and
 * quickly so in a container, where the data folder outlives the process; the
 * lock records this identity so that the next start can tell its holder from a
 * stranger with the same pid.
 *
 * Linux: the boot id and the process's start time in clock ticks since boot,
 * which together name one process for as long as the machine runs. Elsewhere
 * there is no /proc, so the command line from `ps` stands in: weaker, as two
 * runs of one command look alike and so count as the same process, which
 * errs towards refusing. (A holder that rewrote its own command line would
 * look like a stranger; the sandbox never sets process.title.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export type ProcessIdentity = { bootId: string; startTicks: number } | { command: string };

/** The identity of `pid` today, or null when it cannot be read (gone, hidden, no `ps`). */
export function identityOf(pid: number): ProcessIdentity | null {
  return process.platform === 'linux' ? linuxIdentity(pid) : commandIdentity(pid);
}

function linuxIdentity(pid: number): ProcessIdentity | null {
  try {
    const startTicks = startTicksOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return startTicks !== null && bootId ? { bootId, startTicks } : null;
  } catch {
    return null;
  }
}

/**
 * Field 22 of /proc/<pid>/stat, `starttime`. The command name (field 2) is in
 * parentheses and may itself hold spaces and parentheses, so the fields are
 * counted from the last `)`: the state letter after it is field 3.
 */
export function startTicksOf(stat: string): number | null {
  const end = stat.lastIndexOf(')');
  if (end < 0) return null;
  const field = stat.slice(end + 2).split(' ')[22 - 3] ?? '';
  return /^\d+$/.test(field) && Number.isSafeInteger(Number(field)) ? Number(field) : null;
}

function commandIdentity(pid: number): ProcessIdentity | null {
  try {
    // synchronous, as the lock is taken (lock.ts), with a timeout so a hung `ps` cannot hang a start;
    // -ww: no truncation to a terminal width, which the holder and the checker need not share
    const command = execFileSync('ps', ['-ww', '-o', 'command=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return command ? { command } : null;
  } catch {
    return null; // no such process (ps exits 1), or no ps
  }
}

/** An identity as stored in a lock file, or undefined when absent or malformed (then judged by pid alone). */
export function parseIdentity(value: unknown): ProcessIdentity | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Record<string, unknown>;
  if (typeof data.bootId === 'string' && Number.isSafeInteger(data.startTicks)) return { bootId: data.bootId, startTicks: data.startTicks as number };
  if (typeof data.command === 'string') return { command: data.command };
  return undefined;
}

/**
 * True only when `pid` today is provably another process than the one
 * recorded: another boot, another start time, or another command line. No
 * recorded identity, an unreadable one, or two of different kinds prove
 * nothing, and the lock is then judged by its pid alone.
 */
export function isAnotherProcess(pid: number, recorded: ProcessIdentity | undefined): boolean {
  if (!recorded) return false;
  const today = identityOf(pid);
  if (!today) return false;
  if ('bootId' in recorded && 'bootId' in today) return recorded.bootId !== today.bootId || recorded.startTicks !== today.startTicks;
  if ('command' in recorded && 'command' in today) return recorded.command !== today.command;
  return false;
}
