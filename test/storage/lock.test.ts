/**
 * One writer per database file (issue 13, point 1): the lock beside the file,
 * its refusal message, release on close, and the takeover of a stale lock.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox.ts';
import { StoreError, openStore } from '../../src/storage/index.ts';
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
    expect(owner).toMatchObject({ pid: process.pid, host: hostname() });
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

  it.runIf(process.platform === 'linux')('takes over the lock of a killed process nobody has reaped (a zombie, as under a pid 1 that reaps no orphans)', async () => {
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
  });

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
      // storage says the problem; createSandbox adds the advice in the library's words (issue 41)
      await expect(createSandbox({ storage: path, listen: false, clock: 'manual' })).rejects.toThrow(/is in use by process \d+ \(started \d\d:\d\d:\d\d\); stop it or use the `storage` option$/);
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
