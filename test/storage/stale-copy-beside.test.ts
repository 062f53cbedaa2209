/**
 * Under --watch an editor saves an older copy of the database
 * over it, and the process dies before the watcher has dealt with the copy. A
 * watching store keeps the snapshot its journal goes on from beside the file
 * (`db.json.sandbox-latest`, snapshot-file.ts), and the next open adopts it: whether
 * the journal is empty (a compaction just ran), goes on past the copy, or the
 * copy is half written. The copy is set aside under a name that says so, and
 * every acknowledged write is there, with no --recover.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/storage/index.ts';
import { abandon, booking, put, tempDir } from './helpers.ts';

const write = (store: { commit(ops: ReturnType<typeof put>[]): Promise<void> }, id: string) => store.commit([put('bookings', 'wksp_a', booking(id))]);

/** A watched store with a1 compacted, a copy of the file then, a2 and a3 compacted after it, and a4 in the journal when `journalled`. */
async function watchedWithStaleCopy(journalled: boolean) {
  const path = join(tempDir(), 'db.json');
  const { store } = await openStore({ path, fsync: false });
  await store.trackHandEdits();
  await write(store, 'a1');
  await store.compact();
  const stale = readFileSync(path);
  await write(store, 'a2');
  await write(store, 'a3');
  await store.compact();
  if (journalled) await write(store, 'a4');
  return { path, store, stale, acked: journalled ? ['a1', 'a2', 'a3', 'a4'] : ['a1', 'a2', 'a3'] };
}

async function reopenedIds(path: string) {
  const opened = await openStore({ path, fsync: false });
  const ids = opened.store.list<{ id: string }>('bookings', 'wksp_a').map((row) => row.id);
  await opened.store.close();
  return { ids, warnings: opened.warnings };
}

describe('a stale copy saved over a watched database, then kill -9', () => {
  for (const journalled of [false, true]) {
    it(`is set aside and the sandbox's own last snapshot adopted (${journalled ? 'writes in the journal since' : 'an empty journal: a compaction just ran'})`, async () => {
      const { path, store, stale, acked } = await watchedWithStaleCopy(journalled);
      writeFileSync(`${path}.swp`, stale);
      renameSync(`${path}.swp`, path);
      await abandon(store);
      const { ids, warnings } = await reopenedIds(path);
      expect(ids.sort()).toEqual(acked);
      expect(warnings[0]).toMatch(
        /set aside as db\.json\.unloaded-edit-seq\d+, and started from the sandbox's own last snapshot and its journal: no write lost/,
      );
      expect(readdirSync(join(path, '..')).filter((name) => name.startsWith('db.json.unloaded-edit-seq'))).toHaveLength(1);
    });
  }

  it('a copy only half written is set aside as unreadable, and nothing is lost', async () => {
    const { path, store, stale, acked } = await watchedWithStaleCopy(true);
    writeFileSync(path, stale.subarray(0, stale.length >> 1));
    await abandon(store);
    const { ids, warnings } = await reopenedIds(path);
    expect(ids.sort()).toEqual(acked);
    expect(warnings[0]).toMatch(/^db\.json could not be read .*set aside as db\.json\.unloaded-edit-sequnreadable/);
  });

  it('a clean close leaves no copy beside the file, and a store that is not watched never writes one', async () => {
    const watched = await watchedWithStaleCopy(true);
    expect(existsSync(`${watched.path}.sandbox-latest`)).toBe(true);
    await watched.store.close();
    expect(existsSync(`${watched.path}.sandbox-latest`)).toBe(false);

    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path, fsync: false });
    await write(store, 'b1');
    await store.compact();
    expect(existsSync(`${path}.sandbox-latest`)).toBe(false);
    await store.close();
  });
});
