/**
 * Write failures (disk full, I/O error) during a journal append: the commit is
 * rejected, nothing is appended after the partial line, and the next flush
 * repairs the files with a full snapshot.
 */
import { readFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { StoreError, openStore } from '../../src/storage/index.ts';
import { abandon, put, tempDir } from './helpers.ts';

const failure = vi.hoisted(() => ({ nextJournalWrite: false }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
    const handle = await actual.open(...args);
    if (!String(args[0]).endsWith('.journal')) return handle;
    // journal handles fail one write on demand, after writing half of the bytes
    return new Proxy(handle, {
      get(target, key) {
        if (key === 'write') {
          return async (buffer: Buffer, offset: number, length: number) => {
            if (!failure.nextJournalWrite) return target.write(buffer, offset, length);
            failure.nextJournalWrite = false;
            await target.write(buffer, offset, Math.floor(length / 2));
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  };
  return { ...actual, open, default: { ...actual, open } };
});

describe('file store: write failures', () => {
  it('rejects the commit, then repairs the journal with a snapshot on the next write', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.replaceAll({});
    await store.commit([put('c', 'ws', { id: 'a' })]);

    failure.nextJournalWrite = true;
    const failed = store.commit([put('c', 'ws', { id: 'b' })]);
    await expect(failed).rejects.toBeInstanceOf(StoreError);
    await expect(failed).rejects.toThrow(path);
    await expect(failed).rejects.toThrow(/ENOSPC/);
    // the journal now ends in half a line
    expect(readFileSync(`${path}.journal`, 'utf8').endsWith('\n')).toBe(false);

    const snapshots = store.stats.snapshots;
    await store.commit([put('c', 'ws', { id: 'c' })]);
    expect(store.stats.snapshots).toBe(snapshots + 1);
    expect(readFileSync(`${path}.journal`, 'utf8')).toBe('');

    await store.commit([put('c', 'ws', { id: 'd' })]);
    await abandon(store);
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b', 'c', 'd']);
    await reopened.close();
  });

  it('a crash right after a failed append loses only the unacknowledged commit', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.replaceAll({});
    await store.commit([put('c', 'ws', { id: 'a' })]);
    failure.nextJournalWrite = true;
    await expect(store.commit([put('c', 'ws', { id: 'b' })])).rejects.toBeInstanceOf(StoreError);
    await abandon(store);

    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws').map((r) => r.id)).toEqual(['a']);
    await reopened.close();
  });

  it('flush() reports a failed write and retries it as a snapshot', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.replaceAll({});
    failure.nextJournalWrite = true;
    const failed = store.commit([put('c', 'ws', { id: 'a' })]);
    await expect(failed).rejects.toBeInstanceOf(StoreError);
    await store.flush(); // writes the snapshot that repairs the journal
    expect(JSON.parse(readFileSync(path, 'utf8')).collections).toEqual({ c: { ws: { a: { id: 'a' } } } });
    await store.close();
  });
});
