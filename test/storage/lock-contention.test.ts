/**
 * The cases a lock exists for (each survived a mutation): a live
 * owner we may not signal, two sandboxes taking over one stale lock at once,
 * and a release after someone else has taken the lock.
 */
import fs, { readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireLock } from '../../src/storage/lock.ts';
import { StoreError, openStore } from '../../src/storage/index.ts';
import { tempDir } from './helpers.ts';

const realRename = fs.renameSync;
afterEach(() => {
  vi.restoreAllMocks();
  fs.renameSync = realRename;
  syncBuiltinESMExports();
});

const ownerOf = (path: string) => JSON.parse(readFileSync(`${path}.lock`, 'utf8')) as { pid: number; startedAt: string };

describe('database lock under contention', () => {
  it('a live owner that belongs to another user (kill answers EPERM) is alive: the open is refused', async () => {
    const path = join(tempDir(), 'db.json');
    // our parent is alive and not a zombie; signalling it is refused as for another user's process
    const lock = { pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' };
    writeFileSync(`${path}.lock`, JSON.stringify(lock));
    vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    await expect(openStore({ path })).rejects.toThrow(new RegExp(`is in use by process ${process.ppid} `));
    expect(ownerOf(path)).toEqual(lock); // untouched
  });

  it('of two sandboxes taking over one stale lock at the same moment, only the first wins', () => {
    const path = join(tempDir(), 'db.json');
    const winner = { pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:05:00.000Z' };
    writeFileSync(`${path}.lock`, JSON.stringify({ pid: 999_999_999, host: hostname(), startedAt: '2026-01-15T10:02:11.000Z' }));
    // between our reading the stale lock and moving it aside, another sandbox took it over
    let raced = false;
    fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
      if (!raced && String(from) === `${path}.lock`) {
        raced = true;
        writeFileSync(`${path}.lock`, JSON.stringify(winner));
      }
      return realRename(from, to);
    }) as typeof fs.renameSync;
    syncBuiltinESMExports();
    expect(() => acquireLock(path)).toThrow(StoreError);
    expect(() => acquireLock(path)).toThrow(new RegExp(`is in use by process ${process.ppid} `));
    expect(raced).toBe(true);
    expect(ownerOf(path)).toEqual(winner); // the winner's lock was put back, not replaced by ours
  });

  it('releasing a lock that another sandbox has since taken over leaves that lock in place', () => {
    const path = join(tempDir(), 'db.json');
    const ours = acquireLock(path);
    const successor = { pid: process.ppid, host: hostname(), startedAt: '2026-01-15T10:05:00.000Z' };
    writeFileSync(`${path}.lock`, JSON.stringify(successor)); // as a takeover of ours would leave it
    ours.release();
    expect(ownerOf(path)).toEqual(successor);
  });
});
