import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidOpError, SCHEMA_VERSION, StoreError, openStore, type DbSnapshot, type Op } from '../../src/storage/index.ts';
import { JOURNAL_COMPACT_MIN_BYTES } from '../../src/storage/database-files.ts';
import { abandon, booking, del, put, tempDir } from './helpers.ts';

const journalOf = (path: string) => `${path}.journal`;
const readJournal = (path: string) => (existsSync(journalOf(path)) ? readFileSync(journalOf(path), 'utf8') : '');
const journalLines = (path: string) => readJournal(path).split('\n').filter(Boolean);
const readSnapshot = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as DbSnapshot;

/** Opens a store and seeds it (the way the app does on first start). */
async function seeded(path: string, options: { compactAfterCommits?: number } = {}) {
  const { store, fresh } = await openStore({ path, ...options });
  expect(fresh).toBe(true);
  await store.replaceAll({ bookings: { ws1: { seed: booking('seed') } } });
  return store;
}

describe('file store: opening', () => {
  it('creates parent directories for a new database and writes nothing until the first write', async () => {
    const path = join(tempDir(), 'a', 'b', 'db.json');
    const { store, fresh } = await openStore({ path });
    expect(fresh).toBe(true);
    expect(store.path).toBe(path);
    expect(statSync(join(path, '..')).isDirectory()).toBe(true);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(journalOf(path))).toBe(false);
    await store.flush();
    await store.close();
    expect(existsSync(path)).toBe(false);
    expect(existsSync(journalOf(path))).toBe(false);
  });

  it('replaceAll writes the snapshot immediately and truncates the journal', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    expect(readSnapshot(path)).toEqual({
      schemaVersion: SCHEMA_VERSION,
      seq: 1,
      collections: { bookings: { ws1: { seed: booking('seed') } } },
    });
    await store.commit([put('bookings', 'ws1', booking('b1'))]);
    expect(journalLines(path)).toHaveLength(1);
    await store.replaceAll({ bookings: { ws2: { b9: booking('b9') } } });
    expect(readJournal(path)).toBe('');
    expect(readSnapshot(path)).toMatchObject({ seq: 3, collections: { bookings: { ws2: { b9: { id: 'b9' } } } } });
    expect(readFileSync(path, 'utf8')).toBe(store.serialize());
    await store.close();
  });

  it('a first commit on a fresh store (without seeding) creates a loadable database', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    expect(readSnapshot(path).collections).toEqual({ c: { ws: { a: { id: 'a' } } } });
    await store.close();
    const again = await openStore({ path });
    expect(again.fresh).toBe(false);
    expect(again.store.get('c', 'ws', 'a')).toEqual({ id: 'a' });
    await again.store.close();
  });
});

describe('file store: persistence', () => {
  it('keeps data, order, seq and deletes across close and reopen', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('bookings', 'ws1', booking('b2')), put('bookings', 'ws1', booking('b1'))]);
    await store.commit([put('bookings', 'ws1', booking('seed', { status: 'cancelled' })), del('bookings', 'ws1', 'b2')]);
    await store.commit([put('hotels', 'ws2', { id: 'h1', name: 'Grand' })]);
    const before = store.serialize();
    await store.close();
    expect(readJournal(path)).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(before);

    const { store: reopened, fresh } = await openStore({ path });
    expect(fresh).toBe(false);
    expect(reopened.seq).toBe(4);
    expect(reopened.list('bookings', 'ws1').map((r) => [r.id, r.status])).toEqual([
      ['seed', 'cancelled'],
      ['b1', 'confirmed'],
    ]);
    expect(reopened.get('hotels', 'ws2', 'h1')).toEqual({ id: 'h1', name: 'Grand' });
    expect(reopened.serialize()).toBe(before);
    await reopened.close();
  });

  it('recovers from the journal when the process did not close, then compacts right away', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    for (let i = 0; i < 5; i++) await store.commit([put('bookings', 'ws1', booking(`b${i}`))]);
    await store.commit([del('bookings', 'ws1', 'b0')]);
    const expected = store.serialize();
    expect(journalLines(path)).toHaveLength(6);
    expect(readSnapshot(path).seq).toBe(1);
    await abandon(store); // no close(): as if the process had died

    const { store: reopened } = await openStore({ path });
    expect(reopened.serialize()).toBe(expected);
    expect(readJournal(path)).toBe('');
    expect(readFileSync(path, 'utf8')).toBe(expected);
    await reopened.close();
  });

  it('works with fsync disabled', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path, fsync: false });
    await store.replaceAll({});
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await abandon(store);
    const { store: reopened } = await openStore({ path, fsync: false });
    expect(reopened.get('c', 'ws', 'a')).toEqual({ id: 'a' });
    await reopened.close();
  });

  it('flush() resolves once earlier commits are on disk', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    void store.commit([put('c', 'ws', { id: 'a' })]);
    void store.commit([put('c', 'ws', { id: 'b' })]);
    await store.flush();
    expect(journalLines(path).map((l) => JSON.parse(l).seq)).toEqual([2, 3]);
    await store.close();
  });

  it('rejects writes after close', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.close();
    await expect(store.commit([put('c', 'ws', { id: 'a' })])).rejects.toBeInstanceOf(StoreError);
  });
});

describe('file store: group commit', () => {
  it('50 concurrent commits share far fewer journal appends', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    const flushesBefore = store.stats.flushes;
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.commit([put('bookings', 'ws1', booking(`b${i}`))])));
    const flushes = store.stats.flushes - flushesBefore;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(5);
    expect(journalLines(path)).toHaveLength(50);
    await store.close();
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('bookings', 'ws1')).toHaveLength(51);
    await reopened.close();
  });

  it('writers that await each commit are batched together', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    const flushesBefore = store.stats.flushes;
    const writer = async (w: number) => {
      for (let i = 0; i < 20; i++) await store.commit([put('bookings', `ws${w}`, booking(`b${i}`))]);
    };
    await Promise.all(Array.from({ length: 50 }, (_, w) => writer(w)));
    const flushes = store.stats.flushes - flushesBefore;
    expect(store.stats.commits).toBe(1000);
    expect(flushes).toBeLessThan(200);
    // every line is one whole commit and seqs are consecutive
    const seqs = journalLines(path).map((l) => JSON.parse(l).seq as number);
    expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i + 2));
    await store.close();
  });

  it('journals each commit as one line holding exactly its ops', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    const ops: Op[] = [put('c', 'ws', { id: 'a', text: 'line\nbreak' }), del('c', 'ws', 'zz')];
    await store.commit(ops);
    expect(journalLines(path).map((l) => JSON.parse(l))).toEqual([{ seq: 2, ops }]);
    await store.close();
  });
});

describe('file store: atomic commits', () => {
  it('an invalid op rejects the whole commit: nothing in memory, nothing on disk', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('c', 'ws', { id: 'a', v: 1 })]);
    const journalBefore = readJournal(path);
    const bad = { type: 'put', collection: 'c', workspaceId: 'ws', row: { noId: true } } as unknown as Op;
    await expect(store.commit([put('c', 'ws', { id: 'b' }), put('c', 'ws', { id: 'a', v: 2 }), bad])).rejects.toBeInstanceOf(InvalidOpError);
    expect(store.get('c', 'ws', 'b')).toBeUndefined();
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a', v: 1 });
    await store.flush();
    expect(readJournal(path)).toBe(journalBefore);
    await store.commit([put('c', 'ws', { id: 'c' })]);
    expect(journalLines(path).map((l) => JSON.parse(l).seq)).toEqual([2, 3]);
    await store.close();
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'c']);
    await reopened.close();
  });
});

describe('file store: journal recovery', () => {
  async function withJournal(lines: string) {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.commit([put('c', 'ws', { id: 'b' })]);
    const good = readJournal(path);
    expect(good.split('\n')).toHaveLength(3);
    // abandon this instance (as if killed) and doctor the journal
    await abandon(store);
    writeFileSync(journalOf(path), good + lines);
    return path;
  }

  it('ignores a torn final line without newline, and says so in one line', async () => {
    const path = await withJournal('{"seq":4,"ops":[{"type":"put","collection":"c","works');
    const { store, warnings } = await openStore({ path });
    expect(warnings).toEqual([expect.stringContaining(`dropped the last line of ${journalOf(path)}`)]);
    expect(warnings[0]).not.toContain('\n');
    expect(store.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b']);
    expect(store.seq).toBe(3);
    expect(readJournal(path)).toBe(''); // compacted at open
    await store.commit([put('c', 'ws', { id: 'c' })]);
    await store.close();
    const { store: again } = await openStore({ path });
    expect(again.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b', 'c']);
    await again.close();
  });

  it('ignores a complete-looking final entry that lacks its newline', async () => {
    const path = await withJournal('{"seq":4,"ops":[{"type":"put","collection":"c","workspaceId":"ws","row":{"id":"x"}}]}');
    const { store } = await openStore({ path });
    expect(store.get('c', 'ws', 'x')).toBeUndefined();
    expect(store.seq).toBe(3);
    await store.close();
  });

  it('skips entries already in the snapshot (interrupted compaction)', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('c', 'ws', { id: 'a' })]);
    const stale = readJournal(path);
    await store.compact();
    await store.commit([put('c', 'ws', { id: 'b' })]);
    await abandon(store);
    writeFileSync(journalOf(path), stale + readJournal(path));
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b']);
    expect(reopened.seq).toBe(3);
    await reopened.close();
  });

  it('a torn tail with nothing to replay is truncated without rewriting the snapshot', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.close();
    const snapshotBefore = readFileSync(path);
    writeFileSync(journalOf(path), '{"seq":2,"op');
    const { store: reopened } = await openStore({ path });
    expect(readJournal(path)).toBe('');
    expect(readFileSync(path).equals(snapshotBefore)).toBe(true);
    await reopened.close();
  });

  const corruptJournals: [string, string][] = [
    ['garbage in the middle', 'not json\n{"seq":4,"ops":[]}\n'],
    ['a gap in seq', '{"seq":5,"ops":[]}\n{"seq":6,"ops":[]}\n'],
    // a complete line (newline included) was acknowledged: corrupting it later is not a torn write
    ['an unparsable complete final line', '{"seq":4,"ops":[{"ty\0\0\0\n'],
    ['a complete final line corrupted after it was written', '{"seq":4,"ops":[{"type":"put","collection":"c","workspaceId":"ws","row":{"id":"x"}}]]\n'],
    ['an invalid op', '{"seq":4,"ops":[{"type":"put","collection":"c","workspaceId":"ws","row":{}}]}\n{"seq":5,"ops":[]}\n'],
  ];

  it.each(corruptJournals)('refuses a journal with %s and leaves both files untouched', async (_name, lines) => {
    const path = await withJournal(lines);
    const snapshotBefore = readFileSync(path);
    const journalBefore = readFileSync(journalOf(path));
    const error = await openStore({ path }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toContain(journalOf(path));
    expect((error as Error).message).not.toContain('\n');
    expect(readFileSync(path).equals(snapshotBefore)).toBe(true);
    expect(readFileSync(journalOf(path)).equals(journalBefore)).toBe(true);
  });
});

describe('file store: unusable database files', () => {
  const cases: [string, string | Buffer, RegExp][] = [
    ['a zero-byte file', '', /empty/],
    ['invalid JSON', '{"schemaVersion": 1, "collections": {', /not valid JSON/],
    ['a text file', 'hello\nworld\n', /not valid JSON/],
    ['binary junk', Buffer.from([0xff, 0x00, 0x13, 0x37, 0x0a]), /not valid JSON/],
    ['foreign JSON (object)', '{"users":[{"id":1}]}', /not a travel-commerce-sandbox database/],
    ['foreign JSON (array)', '[1,2,3]', /not a travel-commerce-sandbox database/],
    ['JSON without collections', '{"schemaVersion":1,"seq":0}', /"collections"/],
    ['JSON without schemaVersion', '{"seq":0,"collections":{}}', /"schemaVersion"/],
    ['a newer schemaVersion', `{"schemaVersion":${SCHEMA_VERSION + 1},"seq":0,"collections":{}}`, /newer version/],
    ['rows keyed by the wrong id', '{"schemaVersion":1,"seq":0,"collections":{"c":{"ws":{"a":{"id":"b"}}}}}', /must equal its key/],
  ];

  it.each(cases)('refuses %s with a one-line StoreError naming the file, leaving it byte-identical', async (_name, content, pattern) => {
    const dir = tempDir();
    const path = join(dir, 'db.json');
    writeFileSync(path, content);
    const before = readFileSync(path);
    const mtime = statSync(path).mtimeMs;

    const error = await openStore({ path }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreError);
    const message = (error as Error).message;
    expect(message).toContain(path);
    expect(message).toMatch(pattern);
    expect(message).not.toMatch(/[\r\n]/);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(existsSync(journalOf(path))).toBe(false);
    expect(existsSync(join(dir, '.db.json.tmp'))).toBe(false);
  });

  it('refuses a directory', async () => {
    const dir = tempDir();
    await expect(openStore({ path: dir })).rejects.toThrow(/not a regular file/);
  });
});

describe('file store: compaction', () => {
  it('compacts after compactAfterCommits journalled commits, keeping every write', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path, { compactAfterCommits: 10 });
    const snapshotsBefore = store.stats.snapshots;
    for (let i = 0; i < 25; i++) await store.commit([put('c', 'ws', { id: `r${i}`, i })]);
    // let a compaction that was triggered by the last append finish
    await store.flush();
    expect(store.stats.snapshots - snapshotsBefore).toBe(2);
    expect(journalLines(path).length).toBeLessThan(10);
    expect(store.stats.journalledCommits).toBe(journalLines(path).length);
    const snapshot = readSnapshot(path);
    // snapshot + journal = everything
    expect(snapshot.seq + journalLines(path).length).toBe(store.seq);
    await abandon(store);
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws')).toHaveLength(25);
    await reopened.close();
  });

  it('compacts early once the journal outgrows the snapshot, so big rows rewritten often stay within about twice the data', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path, { compactAfterCommits: 1_000_000 });
    const big = 'x'.repeat(1024 * 1024);
    // one 1 MiB row rewritten 48 times: 48 MiB of journal for 1 MiB of data
    for (let i = 0; i < 48; i++) await store.commit([put('c', 'ws', { id: 'same', i, big })]);
    await store.flush();
    expect(store.stats.snapshots).toBeGreaterThanOrEqual(2);
    expect(statSync(journalOf(path)).size).toBeLessThan(JOURNAL_COMPACT_MIN_BYTES);
    await abandon(store);
    const { store: reopened } = await openStore({ path });
    expect(reopened.get('c', 'ws', 'same')).toMatchObject({ i: 47 });
    await reopened.close();
  });

  it('close() writes the snapshot (with seq) and empties the journal', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.commit([put('c', 'ws', { id: 'b' })]);
    expect(journalLines(path)).toHaveLength(2);
    await store.close();
    expect(readJournal(path)).toBe('');
    const snapshot = readSnapshot(path);
    expect(snapshot.seq).toBe(3);
    expect(Object.keys(snapshot.collections.c!.ws!)).toEqual(['a', 'b']);
  });

  it('commits issued while a compaction runs are journalled after it, not lost', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path, { compactAfterCommits: 5 });
    const all: Promise<void>[] = [];
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 7; i++) all.push(store.commit([put('c', `ws${i}`, { id: `r${round}` })]));
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(all);
    const expected = store.serialize();
    await abandon(store); // no close: reopen from snapshot + journal
    const { store: reopened } = await openStore({ path });
    expect(reopened.serialize()).toBe(expected);
    await reopened.close();
  });

  it('compact() is a no-op for a fresh, never-written store', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.compact();
    expect(existsSync(path)).toBe(false);
    await store.close();
  });
});

describe('file store: sliced snapshot writing (no pause at scale)', () => {
  it('the pieces are exactly what JSON.stringify would write, awkward keys and values included', async () => {
    const { captureState, stateFromCollections } = await import('../../src/storage/codec.ts');
    const { snapshotChunks, capturedChunks } = await import('../../src/storage/snapshot-text.ts');
    const collections = {
      'odd "name"': { ws: { a: { id: 'a', n: 1, u: 'ünï\u2028', nested: { x: [1, null, 'y'] } }, __proto__x: { id: '__proto__x' } } },
      c: { w2: { b: { id: 'b', skip: undefined } } },
    };
    const snapshot = { schemaVersion: SCHEMA_VERSION, seq: 7, collections };
    expect([...snapshotChunks(snapshot as never)].join('')).toBe(JSON.stringify(snapshot));
    const state = stateFromCollections({ ...collections, empty: {}, d: { w1: {} } }, 7, (p) => new Error(p));
    expect([...capturedChunks(captureState(state, 1), 7)].join('')).toBe(JSON.stringify(snapshot));
  });

  it('commits made while a snapshot is being written stay out of it (copy on write) and survive in the journal', async () => {
    const path = join(tempDir(), 'db.json');
    const store = await seeded(path);
    await store.commit([put('bookings', 'ws1', booking('b1', { v: 1 })), put('bookings', 'ws1', booking('b2'))]);
    const compaction = store.compact();
    await new Promise((resolve) => setImmediate(resolve)); // the drain loop has captured the state and is writing
    const capturedSeq = store.seq;
    await store.commit([put('bookings', 'ws1', booking('b1', { v: 2 })), del('bookings', 'ws1', 'b2'), put('bookings', 'ws1', booking('b3'))]);
    await compaction;
    const onDisk = readSnapshot(path);
    expect(onDisk.seq).toBe(capturedSeq);
    expect(Object.keys(onDisk.collections.bookings!.ws1!)).toEqual(['seed', 'b1', 'b2']);
    expect(onDisk.collections.bookings!.ws1!.b1).toMatchObject({ v: 1 });
    // memory moved on, and the journal carries the change
    expect(store.list('bookings', 'ws1').map((r) => r.id)).toEqual(['seed', 'b1', 'b3']);
    await abandon(store);
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('bookings', 'ws1').map((r) => r.id)).toEqual(['seed', 'b1', 'b3']);
    expect(reopened.get('bookings', 'ws1', 'b1')).toMatchObject({ v: 2 });
    await reopened.close();
  });

  it('a replaceAll during a compaction is written too, not dropped with the compaction it joined', async () => {
    const path = join(tempDir(), 'db.json');
    const { store } = await openStore({ path });
    await store.replaceAll({ c: { ws: { seed: { id: 'seed' } } } });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    const compaction = store.compact();
    await new Promise((resolve) => setImmediate(resolve)); // the drain loop has captured the state and is writing
    await store.replaceAll({ c: { ws: { restored: { id: 'restored' } } } });
    await compaction;
    await store.commit([put('c', 'ws', { id: 'after' })]); // journalled after the restore: readable only if the restore is on disk
    await abandon(store); // kill -9: nothing more is written
    const { store: reopened } = await openStore({ path });
    expect(reopened.list('c', 'ws').map((r) => r.id)).toEqual(['restored', 'after']);
    await reopened.close();
  });
});
