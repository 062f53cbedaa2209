/**
 * Hand edits of the database file in watch mode (docs/storage.md,
 * "What a watched edit does"): the sandbox's own content is recognised by its
 * hash whatever its mtime or inode, an edit is loaded with the writes made
 * since its seq on top, and a compaction never overwrites an edit the
 * watcher has not dealt with.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type DbSnapshot, type InstrumentedStore } from '../../src/storage/index.ts';
import { abandon, put, tempDir } from './helpers.ts';

const ids = (store: InstrumentedStore) => store.list('c', 'ws').map((r) => r.id);
const onDisk = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as DbSnapshot;

/** A watched store: seeded with `seed`, written once, then writes a..c only in the journal. */
async function watched() {
  const path = join(tempDir(), 'db.json');
  const { store } = await openStore({ path });
  await store.replaceAll({ c: { ws: { seed: { id: 'seed', title: 'as seeded' } } } });
  await store.trackHandEdits();
  for (const id of ['a', 'b', 'c']) await store.commit([put('c', 'ws', { id })]);
  return { path, store };
}

/** What an editor does: the new text to a temp file, renamed over the original. */
function editorSave(path: string, text: string | Buffer): void {
  writeFileSync(`${path}.swp`, text);
  renameSync(`${path}.swp`, path);
}

describe('watch mode: what the database file holds now', () => {
  it('its own write, a touch, an unchanged save and a copy put back are not edits', async () => {
    const { path, store } = await watched();
    expect((await store.readFileEdit()).kind).toBe('own');
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    expect((await store.readFileEdit()).kind).toBe('unchanged');
    expect((await store.readFileEdit()).kind).toBe('own'); // seen once: quiet after
    const bytes = readFileSync(path);
    editorSave(path, bytes);
    expect((await store.readFileEdit()).kind).toBe('unchanged');
    await store.compact();
    editorSave(path, bytes); // the file before that compaction, copied back
    expect((await store.readFileEdit()).kind).toBe('unchanged');
    await store.close();
  });

  it('a file opened before watching is known by its hash once watching starts (hashes are taken only while watching)', async () => {
    const { path, store } = await watched();
    await store.close();
    const { store: reopened } = await openStore({ path });
    await reopened.trackHandEdits();
    const later = new Date(Date.now() + 5_000);
    utimesSync(path, later, later);
    expect((await reopened.readFileEdit()).kind).toBe('unchanged');
    await reopened.close();
  });

  it('a hand edit is read as one, and text that is no database as invalid', async () => {
    const { path, store } = await watched();
    const db = onDisk(path);
    db.collections.c!.ws!.seed = { id: 'seed', title: 'by hand' };
    editorSave(path, JSON.stringify(db, null, 2));
    const edit = await store.readFileEdit();
    expect(edit.kind).toBe('edited');
    if (edit.kind !== 'edited') return;
    expect(edit.snapshot.seq).toBe(db.seq);
    expect(edit.snapshot.collections.c!.ws!.seed!.title).toBe('by hand');
    writeFileSync(path, '{"schemaVersion": 1, "collections": ');
    const invalid = await store.readFileEdit();
    expect(invalid).toMatchObject({ kind: 'invalid', problem: expect.stringContaining('not valid JSON') });
    await store.close();
  });
});

describe("watch mode: something else put in the file's place", () => {
  it('a FIFO is never read (it would block): reported as no regular file, and the next snapshot replaces it', async () => {
    const { path, store } = await watched();
    unlinkSync(path);
    execFileSync('mkfifo', [path]);
    const edit = await store.readFileEdit();
    expect(edit).toMatchObject({ kind: 'invalid', problem: `${path} is not a regular file` });
    await store.commit([put('c', 'ws', { id: 'd' })]);
    await store.compact(); // not held up by it
    expect(Object.keys(onDisk(path).collections.c!.ws!)).toEqual(['seed', 'a', 'b', 'c', 'd']);
    await store.close();
  });
});

describe('watch mode: loading a hand edit', () => {
  it('applies the writes made since the file was written on top of the edit, and writes the result', async () => {
    const { path, store } = await watched();
    const db = onDisk(path);
    expect(Object.keys(db.collections.c!.ws!)).toEqual(['seed']); // a..c are only in the journal
    db.collections.c!.ws!.seed = { id: 'seed', title: 'by hand' };
    db.collections.c!.ws!.added = { id: 'added' };
    await store.replaceAll(db.collections, { writesAfter: db.seq });
    expect(ids(store)).toEqual(['seed', 'added', 'a', 'b', 'c']);
    expect(store.get('c', 'ws', 'seed')).toMatchObject({ title: 'by hand' });
    expect(Object.keys(onDisk(path).collections.c!.ws!)).toEqual(['seed', 'added', 'a', 'b', 'c']); // durable
    await abandon(store);
    const { store: reopened } = await openStore({ path });
    expect(ids(reopened)).toEqual(['seed', 'added', 'a', 'b', 'c']);
    await reopened.close();
  });

  it('refuses, in one line, an edit of a file older than the last snapshot, or one whose seq is ahead', async () => {
    const { path, store } = await watched();
    const old = onDisk(path);
    await store.compact(); // a..c are now in the file
    await expect(store.replaceAll(old.collections, { writesAfter: old.seq })).rejects.toThrow(
      /^db\.json was edited from an older state \(seq 1\) than the one the sandbox has written since \(seq 4\); loading it would undo 3 acknowledged write\(s\)/,
    );
    await expect(store.replaceAll(old.collections, { writesAfter: 99 })).rejects.toThrow(
      /^db\.json says "seq": 99, but the sandbox has only reached seq 4: set "seq" back to 4/,
    );
    expect(ids(store)).toEqual(['seed', 'a', 'b', 'c']);
    await store.close();
  });

  it('a reset since the file was written makes an edit of it an edit of an older state', async () => {
    const { path, store } = await watched();
    const db = onDisk(path);
    await store.replaceAll({ c: { ws: { fresh: { id: 'fresh' } } } });
    await expect(store.replaceAll(db.collections, { writesAfter: db.seq })).rejects.toThrow(/edited from an older state/);
    expect(ids(store)).toEqual(['fresh']);
    await store.close();
  });
});

describe('watch mode: compaction and a hand edit not yet loaded', () => {
  it('does not overwrite the edit: the writes go to the journal, and a restart loads the edit with them on top', async () => {
    const { path, store } = await watched();
    const db = onDisk(path);
    db.collections.c!.ws!.seed = { id: 'seed', title: 'by hand' };
    editorSave(path, JSON.stringify(db));
    await store.commit([put('c', 'ws', { id: 'd' })]);
    await store.compact();
    expect(onDisk(path).collections.c!.ws!.seed!.title).toBe('by hand'); // left as it is
    // at stop the file must hold everything: the snapshot goes in place, and the
    // edit nobody loaded is set aside under a name that says so, and named in a note
    await store.close();
    expect(Object.keys(onDisk(path).collections.c!.ws!)).toEqual(['seed', 'a', 'b', 'c', 'd']);
    expect(onDisk(path).collections.c!.ws!.seed!.title).not.toBe('by hand');
    const aside = readdirSync(dirname(path)).find((name) => name.startsWith('db.json.unloaded-edit-'))!;
    expect(JSON.parse(readFileSync(join(dirname(path), aside), 'utf8')).collections.c.ws.seed.title).toBe('by hand');
    expect(store.notes.join('\n')).toContain(aside);
    const { store: reopened } = await openStore({ path });
    expect(ids(reopened)).toEqual(['seed', 'a', 'b', 'c', 'd']);
    await reopened.close();
  });

  it('overwrites it once the watcher has dealt with it (refused)', async () => {
    const { path, store } = await watched();
    writeFileSync(path, 'not json');
    const edit = await store.readFileEdit();
    expect(edit.kind).toBe('invalid');
    await store.compact();
    expect(readFileSync(path, 'utf8')).toBe('not json');
    store.noteEditHandled((edit as { hash: string }).hash);
    await store.compact();
    expect(Object.keys(onDisk(path).collections.c!.ws!)).toEqual(['seed', 'a', 'b', 'c']);
    await store.close();
  });
});
