/**
 * One writer per database file: the lock beside the file,
 * its refusal message, release on close, and the takeover of a stale lock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs, { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox.ts';
import { StoreError, openStore } from '../../src/storage/index.ts';
import { describeTakeover } from '../../src/storage/lock.ts';
import { identityOf, startTicksOf, type ProcessIdentity } from '../../src/storage/process-identity.ts';
import { put, tempDir } from './helpers.ts';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('database lock', () => {
  it('holds <db>.lock with pid, host and start time while open, and removes it on close', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    const owner = JSON.parse(readFileSync(`${path}.lock`, 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, host: hostname(), identity: identityOf(process.pid) });
    expect(Date.parse(owner.startedAt)).not.toBeNaN();
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('refuses a second open of the same file with one line naming the file and the holder', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    const error = await openStore({ path }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${process.pid} \\(started \\d\\d:\\d\\d:\\d\\d\\)$`),
    );
    // the refused open did not disturb the holder
    await store.commit([put('c', 'ws', { id: 'b' })]);
    await store.close();
    const { store: again } = await openStore({ path });
    expect(again.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b']);
    await again.close();
  });

  it('takes over a lock whose process is gone, and says so', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = deadPid();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    const { store, staleLock } = await openStore({ path });
    expect(staleLock).toEqual({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' });
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    await store.close();
  });

  it.runIf(process.platform === 'linux')(
    'takes over the lock of a killed process nobody has reaped (a zombie, as under a pid 1 that reaps no orphans)',
    async () => {
      // `sleep 0.05 &` is reaped by nobody: its parent becomes `sleep 30`, which never waits
      const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
        let state = '';
        for (const end = Date.now() + 15_000; state !== 'Z' && Date.now() < end; ) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        }
        expect(state).toBe('Z');
        expect(() => process.kill(pid, 0)).not.toThrow(); // what made it look alive
        const path = join(tempDir(), 'db.json');
        writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
        const { store, staleLock } = await openStore({ path });
        expect(staleLock?.pid).toBe(pid);
        await store.close();
      } finally {
        parent.kill('SIGKILL');
      }
    },
  );

  it('takes over our own pid in a lock this process does not hold (a container restarted as the same pid)', async () => {
    const path = join(tempDir(), 'db.json');
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    const { store, staleLock } = await openStore({ path });
    expect(staleLock?.pid).toBe(process.pid);
    await store.close();
  });

  it('an unreadable lock file is taken over; a lock from another host is refused', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json.lock'), 'garbage');
    const { store } = await openStore({ path: join(dir, 'a.json') });
    await store.close();

    writeFileSync(join(dir, 'b.json.lock'), JSON.stringify({ pid: 1, host: 'elsewhere.example', startedAt: '2026-01-15T10:02:11.000Z' }));
    await expect(openStore({ path: join(dir, 'b.json') })).rejects.toThrow(/in use by process 1 on host elsewhere\.example .*delete .*b\.json\.lock/);
  });

  it('createSandbox reports a taken-over stale lock in its warnings (the CLI prints them on stderr)', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = deadPid();
    writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    const sandbox = await createSandbox({ storage: path, listen: false, clock: 'manual' });
    expect(sandbox.warnings).toContain(`took over the stale lock on ${path}: process ${pid} (started 10:02:11) is no longer running`);
    await sandbox.stop();
  });

  it('createSandbox obeys the lock; an in-memory sandbox takes none', async () => {
    const path = join(tempDir(), 'db.json');
    const first = await createSandbox({ storage: path, listen: false, clock: 'manual' });
    try {
      // storage says the problem; createSandbox adds the advice in the library's words
      await expect(createSandbox({ storage: path, listen: false, clock: 'manual' })).rejects.toThrow(
        /is in use by process \d+ \(started \d\d:\d\d:\d\d\); stop it or use the `storage` option$/,
      );
      const memory = await createSandbox({ storage: 'memory', listen: false, clock: 'manual' });
      await memory.stop();
    } finally {
      await first.stop();
    }
    expect(existsSync(`${path}.lock`)).toBe(false);
    const again = await createSandbox({ storage: path, listen: false, clock: 'manual' });
    await again.stop();
  });
});

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The pid of a live process that is no sandbox: what a pid reused after kill -9 names. */
function liveStranger(): number {
  // spawn returns once the child has exec'd, so its start time and command line are final
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

/** An identity that `pid` does not have: the process that held the pid before. */
function earlierIdentity(pid: number): ProcessIdentity {
  const today = identityOf(pid)!;
  return 'startTicks' in today ? { ...today, startTicks: today.startTicks - 1 } : { command: `${today.command} --earlier` };
}

const lockNaming = (path: string, pid: number, identity?: unknown) =>
  writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z', ...(identity ? { identity } : {}) }));

describe('a lock whose pid now names another process', () => {
  it('is taken over when that process started at another time, and the takeover line says the pid is reused', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    const identity = earlierIdentity(pid);
    lockNaming(path, pid, identity);
    const { store, staleLock } = await openStore({ path });
    try {
      expect(staleLock).toEqual({ pid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z', identity, pidReused: true });
      expect(describeTakeover(path, staleLock!)).toBe(
        `took over the stale lock on ${path}: process ${pid} (started 10:02:11) is gone, and pid ${pid} now belongs to another process`,
      );
      expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid).toBe(process.pid);
    } finally {
      await store.close();
    }
  });

  it.runIf(process.platform === 'linux')('is taken over when it was written before a reboot (another boot id)', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    const today = identityOf(pid) as { bootId: string; startTicks: number };
    lockNaming(path, pid, { ...today, bootId: '00000000-0000-4000-8000-000000000000' });
    const { store, staleLock } = await openStore({ path });
    expect(staleLock).toMatchObject({ pid, pidReused: true });
    await store.close();
  });

  it('createSandbox reports that takeover in its warnings, the line the CLI prints', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    lockNaming(path, pid, earlierIdentity(pid));
    const sandbox = await createSandbox({ storage: path, listen: false, clock: 'manual' });
    try {
      expect(sandbox.warnings).toContain(
        `took over the stale lock on ${path}: process ${pid} (started 10:02:11) is gone, and pid ${pid} now belongs to another process`,
      );
    } finally {
      await sandbox.stop();
    }
  });

  it('a live process with the identity the lock records is its holder: refused, the lock untouched', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    lockNaming(path, pid, identityOf(pid));
    const before = readFileSync(`${path}.lock`, 'utf8');
    await expect(openStore({ path })).rejects.toThrow(new RegExp(`is in use by process ${pid} \\(started 10:02:11\\)$`));
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(before);
  });

  it.each([
    ['no identity (a lock of an older version)', undefined],
    ['an identity of the other platform', process.platform === 'linux' ? { command: 'node' } : { bootId: 'b', startTicks: 1 }],
    ['an identity of an unknown kind', { note: 'from a newer version' }],
    ['a malformed identity', { bootId: 7, startTicks: 'soon' }],
  ])('a live pid with %s is judged by the pid alone: refused', async (_name, identity) => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    lockNaming(path, pid, identity);
    await expect(openStore({ path })).rejects.toThrow(new RegExp(`is in use by process ${pid} `));
  });

  it.runIf(process.platform === 'linux')('a live pid whose identity cannot be read today is judged by the pid alone: refused', async () => {
    const path = join(tempDir(), 'db.json');
    const pid = liveStranger();
    lockNaming(path, pid, earlierIdentity(pid));
    const realRead = fs.readFileSync;
    // as for a process /proc hides (mounted with hidepid)
    fs.readFileSync = ((file: fs.PathOrFileDescriptor, options?: unknown) => {
      if (String(file) === `/proc/${pid}/stat`) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return (realRead as (f: fs.PathOrFileDescriptor, o?: unknown) => unknown)(file, options);
    }) as typeof fs.readFileSync;
    syncBuiltinESMExports();
    try {
      await expect(openStore({ path })).rejects.toThrow(new RegExp(`is in use by process ${pid} `));
    } finally {
      fs.readFileSync = realRead;
      syncBuiltinESMExports();
    }
  });
});

describe('process identity', () => {
  it('is the same across two reads of one process, differs for another process, and is none for a dead pid', () => {
    const ours = identityOf(process.pid);
    expect(ours).not.toBeNull();
    expect(identityOf(process.pid)).toEqual(ours);
    expect(identityOf(liveStranger())).not.toEqual(ours);
    expect(identityOf(deadPid())).toBeNull();
  });

  it.runIf(process.platform === 'linux')('is the boot id and the start time in clock ticks, read after the last parenthesis of the command name', () => {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const ticks = startTicksOf(stat);
    expect(ticks).toBeGreaterThan(0);
    expect(identityOf(process.pid)).toEqual({ bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(), startTicks: ticks });
    // a command name may hold spaces and parentheses: `(a) (b 1 2)` must not shift the fields
    expect(startTicksOf(stat.replace(/\(.*\)/, '(a) (b 1 2)'))).toBe(ticks);
    expect(startTicksOf('garbage')).toBeNull();
  });
});
