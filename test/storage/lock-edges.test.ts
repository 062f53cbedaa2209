/**
 * The lock's edges that lock.test.ts and lock-contention.test.ts leave
 * unchecked (found by mutation testing): the exact refusals, what counts as a
 * readable lock, a lock that vanishes or keeps changing under us, a lock path
 * we cannot create, the exit hook, and releases that must not remove a lock
 * this process no longer holds.
 */
import { spawnSync } from 'node:child_process';
import fs, { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSandbox } from '../../src/sandbox.ts';
import { StoreError, openStore } from '../../src/storage/index.ts';
import { acquireLock, describeTakeover, lockPathOf } from '../../src/storage/lock.ts';
import { identityOf } from '../../src/storage/process-identity.ts';
import { tempDir } from './helpers.ts';

const real = { readFileSync: fs.readFileSync, linkSync: fs.linkSync, renameSync: fs.renameSync };
afterEach(() => {
  vi.restoreAllMocks();
  fs.readFileSync = real.readFileSync;
  fs.linkSync = real.linkSync;
  fs.renameSync = real.renameSync;
  syncBuiltinESMExports();
});

/** Replaces an fs function for the lock module too (its named imports are live bindings of node:fs). */
function patch<K extends keyof typeof real>(name: K, fn: (typeof real)[K]) {
  (fs as unknown as Record<string, unknown>)[name] = fn;
  syncBuiltinESMExports();
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ownerOf = (path: string) => JSON.parse(readFileSync(lockPathOf(path), 'utf8')) as { pid: number; host: string; startedAt: string };
const thrown = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as StoreError;
  }
  throw new Error('expected a StoreError');
};
/** Files left beside the database other than the database and its lock (temporary or moved-aside locks). */
const leftovers = (dir: string) => readdirSync(dir).filter((name) => name !== 'db.json' && name !== 'db.json.lock');

describe('the refusals, word for word', () => {
  it('a live sandbox on this host: its pid and start time, and the advice naming the option or the flag', () => {
    const path = join(tempDir(), 'db.json');
    // our parent process is alive and not a zombie, as another sandbox would be
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    const error = thrown(() => acquireLock(path));
    expect(error).toBeInstanceOf(StoreError);
    expect(error.problem).toBe(`${path} is in use by process ${process.ppid} (started 10:02:11)`);
    // the wording of the advice is the library's (createSandbox) or the CLI's, not storage's
    expect(error.message).toBe(error.problem);
    expect(error.advice?.option).toBe('storage');
    expect(error.advice?.text('--storage')).toBe('stop it or use --storage');
    expect(ownerOf(path).pid).toBe(process.ppid);
  });

  it('a start time that is not an ISO time is shown as it is', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: 'yesterday' }));
    expect(thrown(() => acquireLock(path)).problem).toBe(`${path} is in use by process ${process.ppid} (started yesterday)`);
  });

  it('a sandbox on another host: the host, and the lock file to delete if it is gone', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: 4321, host: 'elsewhere.example', startedAt: '2026-01-15T10:02:11.000Z' }));
    const error = thrown(() => acquireLock(path));
    expect(error.message).toBe(
      `${path} is in use by process 4321 on host elsewhere.example (started 10:02:11); stop it, or delete ${path}.lock if that sandbox is gone`,
    );
    expect(error.advice).toBeUndefined();
  });

  it('an owner we may not signal whose /proc entry cannot be read is taken for alive', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = deadPid();
    writeFileSync(lockPathOf(path), JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    await expect(openStore({ path })).rejects.toThrow(new RegExp(`^${escapeRegExp(path)} is in use by process ${pid} `));
  });

  it('the takeover lines printed on start', () => {
    expect(describeTakeover('/d/db.json', { pid: 0, host: '?', startedAt: '?' })).toBe('took over the unreadable lock on /d/db.json');
    expect(describeTakeover('/d/db.json', { pid: 77, host: 'h', startedAt: '2026-01-15T10:02:11.000Z' })).toBe(
      'took over the stale lock on /d/db.json: process 77 (started 10:02:11) is no longer running',
    );
    expect(describeTakeover('/d/db.json', { pid: 77, host: 'h', startedAt: '2026-01-15T10:02:11.000Z', pidReused: true })).toBe(
      'took over the stale lock on /d/db.json: process 77 (started 10:02:11) is gone, and pid 77 now belongs to another process',
    );
  });

  it('createSandbox reports the takeover of an unreadable lock', async () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), '');
    const sandbox = await createSandbox({ storage: path, listen: false, clock: 'manual' });
    try {
      expect(sandbox.warnings).toContain(`took over the unreadable lock on ${path}`);
    } finally {
      await sandbox.stop();
    }
  });
});

describe('what a readable lock is', () => {
  const live = { pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' };

  it.each([
    ['a pid that is text', { ...live, pid: String(process.ppid) }],
    ['a pid that is not a whole number', { ...live, pid: process.ppid + 0.5 }],
    ['no host', { pid: live.pid, startedAt: live.startedAt }],
    ['a host that is not text', { ...live, host: 7 }],
    ['a start time that is not text', { ...live, startedAt: 1 }],
    ['not an object', [live.pid, live.host]],
  ])('%s: the lock is unreadable, taken over as such although its pid is alive', (_name, content) => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify(content));
    const lock = acquireLock(path);
    try {
      expect(lock.tookOver).toEqual({ pid: 0, host: '?', startedAt: '?' });
      expect(ownerOf(path)).toEqual(lock.owner);
    } finally {
      lock.release();
    }
  });

  it('a lock with extra fields is read by its pid, host and start time', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ ...live, version: 2 }));
    expect(thrown(() => acquireLock(path)).problem).toMatch(new RegExp(`in use by process ${process.ppid} `));
  });

  it('the lock written holds this process, its identity, this host and the time it was taken, one JSON line', () => {
    const path = join(tempDir(), 'db.json');
    const before = Date.now();
    const lock = acquireLock(path);
    try {
      const text = readFileSync(lockPathOf(path), 'utf8');
      expect(text.endsWith('}\n')).toBe(true);
      expect(JSON.parse(text)).toEqual({ pid: process.pid, host: hostname(), startedAt: lock.owner.startedAt, identity: identityOf(process.pid) });
      expect(Date.parse(lock.owner.startedAt)).toBeGreaterThanOrEqual(before - 1);
      expect(lock.tookOver).toBeNull();
      expect(lock.path).toBe(`${path}.lock`);
    } finally {
      lock.release();
    }
  });
});

describe('a lock that changes under us', () => {
  it('a lock released between our create and our read: the next attempt takes it, with no takeover', () => {
    const dir = tempDir();
    const path = join(dir, 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    let released = false;
    patch('readFileSync', ((file: fs.PathOrFileDescriptor, options?: unknown) => {
      if (!released && String(file) === lockPathOf(path)) {
        released = true;
        unlinkSync(lockPathOf(path)); // its owner stops right now
      }
      return (real.readFileSync as (f: fs.PathOrFileDescriptor, o?: unknown) => unknown)(file, options);
    }) as typeof fs.readFileSync);
    const lock = acquireLock(path);
    try {
      expect(released).toBe(true);
      expect(lock.tookOver).toBeNull();
      expect(ownerOf(path).pid).toBe(process.pid);
      expect(leftovers(dir)).toEqual([]);
    } finally {
      lock.release();
    }
  });

  it('a lock that keeps vanishing and reappearing: five attempts, then a refusal that says so', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    let reads = 0;
    patch('readFileSync', ((file: fs.PathOrFileDescriptor, options?: unknown) => {
      if (String(file) === lockPathOf(path)) {
        reads++;
        throw Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' }); // gone each time we look, back each time we create
      }
      return (real.readFileSync as (f: fs.PathOrFileDescriptor, o?: unknown) => unknown)(file, options);
    }) as typeof fs.readFileSync);
    const error = thrown(() => acquireLock(path));
    expect(error.message).toBe(`Cannot lock database ${path}: ${path}.lock keeps changing; is another sandbox starting on it?`);
    expect(reads).toBe(5);
  });

  it('a lock path we cannot read (a directory there) is unreadable: taken over, not retried as missing', () => {
    const path = join(tempDir(), 'db.json');
    mkdirSync(lockPathOf(path));
    const lock = acquireLock(path);
    try {
      expect(lock.tookOver).toEqual({ pid: 0, host: '?', startedAt: '?' });
      expect(ownerOf(path).pid).toBe(process.pid);
    } finally {
      lock.release();
    }
  });
});

describe('a lock file that cannot be made', () => {
  it('a directory that does not exist: the lock path and the system error', () => {
    const path = join(tempDir(), 'missing', 'db.json');
    expect(thrown(() => acquireLock(path)).message).toMatch(new RegExp(`^Cannot lock database: cannot create ${escapeRegExp(path)}\\.lock: ENOENT`));
  });

  it('a file system that refuses hard links: the lock path and the error, and no temporary file left', () => {
    const dir = tempDir();
    const path = join(dir, 'db.json');
    patch('linkSync', (() => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    }) as typeof fs.linkSync);
    expect(thrown(() => acquireLock(path)).message).toBe(`Cannot lock database: cannot create ${path}.lock: EPERM: operation not permitted, link`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('after a takeover no temporary or moved-aside lock is left beside the database', () => {
    const dir = tempDir();
    const path = join(dir, 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    const lock = acquireLock(path);
    try {
      expect(lock.tookOver?.startedAt).toBe('2026-01-15T10:02:11.000Z');
      expect(leftovers(dir)).toEqual([]);
    } finally {
      lock.release();
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('release', () => {
  it('a second release of an old lock leaves the lock this process took since in place, and still held', () => {
    const path = join(tempDir(), 'db.json');
    const first = acquireLock(path);
    first.release();
    const second = acquireLock(path);
    try {
      first.release();
      expect(existsSync(lockPathOf(path))).toBe(true);
      expect(ownerOf(path).startedAt).toBe(second.owner.startedAt);
      // still held by this process: another open is refused, not taken over as a stale lock of our own pid
      expect(thrown(() => acquireLock(path)).problem).toMatch(new RegExp(`in use by process ${process.pid} `));
    } finally {
      second.release();
    }
    expect(existsSync(lockPathOf(path))).toBe(false);
  });

  it('a lock rewritten since with our pid but another start time, or another pid and our start time, is not ours to remove', () => {
    for (const change of [{ startedAt: '2026-01-15T10:05:00.000Z' }, { pid: process.ppid }]) {
      const path = join(tempDir(), 'db.json');
      const ours = acquireLock(path);
      const successor = { ...ours.owner, ...change };
      writeFileSync(lockPathOf(path), JSON.stringify(successor));
      ours.release();
      expect(ownerOf(path), JSON.stringify(change)).toEqual(successor);
    }
  });

  it('a process that exits without closing its store removes its lock (the exit hook)', () => {
    const path = join(tempDir(), 'db.json');
    const script = `import { acquireLock } from ${JSON.stringify(new URL('../../src/storage/lock.ts', import.meta.url).pathname)};
acquireLock(${JSON.stringify(path)}); acquireLock(${JSON.stringify(`${path}.2`)});
process.stdout.write('locked'); process.exit(3);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: process.cwd() });
    expect(child.stdout).toBe('locked');
    expect(child.status).toBe(3);
    expect(existsSync(lockPathOf(path))).toBe(false);
    expect(existsSync(lockPathOf(`${path}.2`))).toBe(false);
  });
});

describe('two sandboxes at one stale lock', () => {
  const stale = { pid: 999_999_999, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' };

  /** Between our reading the stale lock and moving it aside, `racer` replaces it. */
  function raceWith(path: string, racer: object | null) {
    let raced = false;
    patch('renameSync', ((from: fs.PathLike, to: fs.PathLike) => {
      if (!raced && String(from) === lockPathOf(path)) {
        raced = true;
        if (racer === null) {
          unlinkSync(lockPathOf(path)); // the other sandbox moved it first
          throw Object.assign(new Error('ENOENT: no such file or directory, rename'), { code: 'ENOENT' });
        }
        writeFileSync(lockPathOf(path), JSON.stringify(racer));
      }
      return real.renameSync(from, to);
    }) as typeof fs.renameSync);
    return () => raced;
  }

  it('a live lock with the stale start time but another pid is not the stale one: put back and obeyed', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify(stale));
    const racer = { ...stale, pid: process.ppid };
    const raced = raceWith(path, racer);
    expect(thrown(() => acquireLock(path)).problem).toMatch(new RegExp(`in use by process ${process.ppid} `));
    expect(raced()).toBe(true);
    expect(ownerOf(path)).toEqual(racer);
  });

  it('a lock with the stale pid but another start time is not the stale one: what is reported taken over is the lock replaced', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify(stale));
    const racer = { ...stale, startedAt: '2026-01-15T10:05:00.000Z' }; // the pid reused, and dead again
    const raced = raceWith(path, racer);
    const lock = acquireLock(path);
    try {
      expect(raced()).toBe(true);
      expect(lock.tookOver).toEqual(racer);
    } finally {
      lock.release();
    }
  });

  it('an unreadable lock replaced by a live one as we move it aside: the live one is put back and obeyed', () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(lockPathOf(path), 'garbage');
    const racer = { ...stale, pid: process.ppid };
    const raced = raceWith(path, racer);
    expect(thrown(() => acquireLock(path)).problem).toMatch(new RegExp(`in use by process ${process.ppid} `));
    expect(raced()).toBe(true);
    expect(ownerOf(path)).toEqual(racer);
  });

  it('a stale lock another sandbox moved away first: this one takes the free lock and reports no takeover', () => {
    const dir = tempDir();
    const path = join(dir, 'db.json');
    writeFileSync(lockPathOf(path), JSON.stringify(stale));
    const raced = raceWith(path, null);
    const lock = acquireLock(path);
    try {
      expect(raced()).toBe(true);
      expect(lock.tookOver).toBeNull();
      expect(ownerOf(path).pid).toBe(process.pid);
      expect(leftovers(dir)).toEqual([]);
    } finally {
      lock.release();
    }
  });
});

describe('resources', () => {
  it('one exit hook for the process, however many locks it takes', () => {
    const dir = tempDir();
    acquireLock(join(dir, 'first.json')).release(); // the hook is installed by now
    const before = process.listenerCount('exit');
    for (let i = 0; i < 3; i++) acquireLock(join(dir, `db${i}.json`)).release();
    expect(process.listenerCount('exit')).toBe(before);
  });

  it.runIf(process.platform === 'linux')('taking and releasing locks leaves no file descriptor open', () => {
    const dir = tempDir();
    // the descriptors of this process that point into `dir` (other test files may open files meanwhile)
    const openHere = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
        } catch {
          return false; // closed while we looked
        }
      });
    for (let i = 0; i < 5; i++) acquireLock(join(dir, `db${i}.json`)).release();
    expect(openHere()).toEqual([]);
  });
});
