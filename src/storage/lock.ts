/**
 * One writer per database file (docs/storage.md, "Lock"). Two sandboxes on the
 * same file would each keep their own memory and overwrite each other's
 * snapshots, silently losing acknowledged writes; so opening a file takes an
 * exclusive lock file beside it, `<db>.lock`, created with O_EXCL and holding
 * `{pid, host, startedAt, identity}`, as PostgreSQL does with its
 * postmaster.pid. A lock whose process is gone (kill -9) is stale and taken
 * over at once, also when its pid has since been given to another process
 * (process-identity.ts).
 *
 * Synchronous fs calls on purpose: the lock is taken once at open, and the
 * exit handler that removes it cannot await.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { identityOf, isAnotherProcess, parseIdentity, type ProcessIdentity } from './process-identity.ts';
import { StoreError } from './types.ts';

export interface LockOwner {
  pid: number;
  host: string;
  /** ISO time the owner took the lock */
  startedAt: string;
  /** who the pid named when the lock was taken; absent in locks of older versions, judged by pid alone */
  identity?: ProcessIdentity;
}

/** A stale lock taken over, and whether its pid was alive but named another process by then. */
export type StaleLock = LockOwner & { pidReused?: boolean };

export interface HeldLock {
  path: string;
  owner: LockOwner;
  /** the stale lock this one replaced, if any */
  tookOver: StaleLock | null;
  release(): void;
}

/** Lock files this process holds: a second open in the same process is refused too. */
const held = new Map<string, HeldLock>();
let exitHookInstalled = false;

export const lockPathOf = (dbPath: string) => `${dbPath}.lock`;

/** Takes the lock on `dbPath` or throws a StoreError naming the file and its holder. */
export function acquireLock(dbPath: string): HeldLock {
  const path = lockPathOf(dbPath);
  const identity = identityOf(process.pid);
  const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...(identity ? { identity } : {}) };
  let tookOver: StaleLock | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createExclusive(path, owner)) {
      const lock: HeldLock = { path, owner, tookOver, release: () => releaseLock(lock) };
      held.set(path, lock);
      installExitHook();
      return lock;
    }
    const current = readOwner(path);
    if (current === 'missing') continue; // released between our create and read: try again
    const holder = current === 'unreadable' ? 'gone' : holderOf(current, path);
    if (current !== 'unreadable' && holder === 'alive') throw inUse(dbPath, path, current);
    if (current === 'unreadable' && attempt === 0) {
      // a lock being written this instant is briefly empty; look once more
      continue;
    }
    if (!removeStale(path, current)) continue;
    tookOver = current === 'unreadable' ? { pid: 0, host: '?', startedAt: '?' } : holder === 'reused' ? { ...current, pidReused: true } : current;
  }
  throw new StoreError(`Cannot lock database ${dbPath}: ${path} keeps changing; is another sandbox starting on it?`);
}

function createExclusive(path: string, owner: LockOwner): boolean {
  // write a private temp file, then link it into place: the lock appears complete or not at all
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o644);
  } catch (err) {
    throw new StoreError(`Cannot lock database: cannot create ${path}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StoreError(`Cannot lock database: cannot create ${path}: ${(err as Error).message}`);
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // already gone
    }
  }
}

function readOwner(path: string): LockOwner | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
  try {
    const data = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isSafeInteger(data.pid) && typeof data.host === 'string' && typeof data.startedAt === 'string') {
      const identity = parseIdentity(data.identity);
      return { pid: data.pid!, host: data.host, startedAt: data.startedAt, ...(identity ? { identity } : {}) };
    }
  } catch {
    // fall through
  }
  return 'unreadable';
}

/**
 * A lock from another host cannot be checked, so it counts as held. On this
 * host: our own pid is alive only when this process really holds the lock (a
 * container restarted as pid 1 finds its own pid in a stale lock). A live pid
 * that provably names another process than the one that took the lock is
 * 'reused'; when that cannot be told, the pid alone decides, erring towards
 * refusing.
 */
function holderOf(owner: LockOwner, path: string): 'alive' | 'gone' | 'reused' {
  if (owner.host !== hostname()) return 'alive';
  if (owner.pid === process.pid) return held.has(path) ? 'alive' : 'gone';
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'gone'; // EPERM: alive, another user's
  }
  if (isZombie(owner.pid)) return 'gone';
  return isAnotherProcess(owner.pid, owner.identity) ? 'reused' : 'alive';
}

/**
 * A killed process whose parent has not reaped it still answers kill(pid, 0),
 * but holds nothing. In a container whose pid 1 reaps no orphans (Docker
 * without --init, many CI runners), a sandbox killed with -9 stays a zombie
 * until the container ends, and its lock would look held. Linux only: the
 * state letter after the command name in /proc/<pid>/stat.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Moves the stale lock aside and checks that what was moved is still the stale
 * one: two sandboxes taking over at the same moment cannot both win.
 */
function removeStale(path: string, seen: LockOwner | 'unreadable'): boolean {
  const aside = `${path}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, aside);
  } catch {
    return false; // someone else moved it first
  }
  const moved = readOwner(aside);
  const same = seen === 'unreadable' ? moved === 'unreadable' : typeof moved === 'object' && moved.pid === seen.pid && moved.startedAt === seen.startedAt;
  if (!same) {
    // we moved a fresh lock: put it back unless a newer one already took its place
    try {
      linkSync(aside, path);
    } catch {
      // a third party holds the lock now; the fresh lock we moved has lost, as it would have anyway
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    // nothing to clean
  }
  return same;
}

function releaseLock(lock: HeldLock): void {
  if (held.get(lock.path) !== lock) return;
  held.delete(lock.path);
  const current = readOwner(lock.path);
  if (typeof current === 'object' && current.pid === lock.owner.pid && current.startedAt === lock.owner.startedAt) {
    try {
      unlinkSync(lock.path);
    } catch {
      // already removed
    }
  }
}

/** process.exit() (Ctrl+C, a CLI error) must not leave a lock for the next start to take over. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of [...held.values()]) lock.release();
  });
}

function inUse(dbPath: string, lockPath: string, owner: LockOwner): StoreError {
  const since = timeOf(owner.startedAt);
  const where = owner.host === hostname() ? '' : ` on host ${owner.host}`;
  const problem = `${dbPath} is in use by process ${owner.pid}${where} (started ${since})`;
  if (owner.host !== hostname()) return new StoreError(`${problem}; stop it, or delete ${lockPath} if that sandbox is gone`);
  return new StoreError(problem, { advice: { option: 'storage', text: (name) => `stop it or use ${name}` } });
}

const timeOf = (iso: string) => /T(\d\d:\d\d:\d\d)/.exec(iso)?.[1] ?? iso;

/** The one line printed when a stale lock was taken over. */
export function describeTakeover(dbPath: string, stale: StaleLock): string {
  if (stale.pid === 0) return `took over the unreadable lock on ${dbPath}`;
  const gone = `took over the stale lock on ${dbPath}: process ${stale.pid} (started ${timeOf(stale.startedAt)})`;
  return stale.pidReused ? `${gone} is gone, and pid ${stale.pid} now belongs to another process` : `${gone} is no longer running`;
}
