/**
 * Opening a database: in memory, a new file (seeded by the caller), or an
 * existing snapshot plus journal, validated and replayed.
 */
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low, Memory } from 'lowdb';
import { applyOps, emptySnapshot, stateFromCollections } from './codec.ts';
import { parseJournal } from './journal-text.ts';
import { parseSnapshotText, snapshotChunks } from './snapshot-text.ts';
import { DurableJsonFile, errorMessage, isErrno, type FileBackend } from './file-io.ts';
import { acquireLock, type HeldLock } from './lock.ts';
import { resolveDatabasePath } from './real-path.ts';
import { DEFAULT_COMPACT_AFTER_COMMITS, LocalStore } from './store.ts';
import { StoreError, type DbSnapshot, type OpenedInstrumentedStore, type OpenStoreOptions } from './types.ts';

/**
 * Opens (or prepares) a database. Without `path` the store is in memory
 * (lowdb Memory adapter). With a path that does not exist, parent directories
 * are created and nothing is written until the first commit/replaceAll.
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<OpenedInstrumentedStore> {
  const compactAfter = options.compactAfterCommits ?? DEFAULT_COMPACT_AFTER_COMMITS;
  if (!Number.isSafeInteger(compactAfter) || compactAfter < 1) {
    throw new RangeError(`compactAfterCommits must be a positive integer, got ${compactAfter}`);
  }

  if (options.path === undefined) {
    const low = new Low<DbSnapshot>(new Memory<DbSnapshot>(), emptySnapshot());
    await low.read();
    return { store: new LocalStore({ state: new Map(), seq: 0, low, file: null, snapshotOnDisk: false }), fresh: true, staleLock: null, warnings: [] };
  }

  // the real file: one lock for every spelling of it, and writes that land on it (real-path.ts)
  const { real: path, undoMkdir } = await resolveDatabasePath(options.path);
  const lock = options.lock !== false ? acquireLock(path) : null;
  try {
    return await openFile(path, compactAfter, options, lock, undoMkdir);
  } catch (err) {
    lock?.release();
    throw err;
  }
}

async function openFile(path: string, compactAfter: number, options: OpenStoreOptions, lock: HeldLock | null, undoMkdir: () => Promise<void>): Promise<OpenedInstrumentedStore> {
  const staleLock = lock?.tookOver ?? null;

  const snapshotFile = new DurableJsonFile<DbSnapshot>(
    path,
    { parse: (text) => parseSnapshotText(text, path), chunks: snapshotChunks },
    options.fsync ?? true,
  );
  const file: FileBackend = {
    path,
    snapshotFile,
    journalPath: `${path}.journal`,
    dir: dirname(path),
    fsync: options.fsync ?? true,
    compactAfter,
  };
  const cannot = (problem: string) => new StoreError(`Cannot open database ${path}: ${problem}`);
  const low = new Low<DbSnapshot>(snapshotFile, emptySnapshot());

  let exists = true;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw cannot('it is not a regular file');
  } catch (err) {
    if (err instanceof StoreError) throw err;
    if (!isErrno(err, 'ENOENT')) throw cannot(errorMessage(err));
    exists = false;
  }

  if (!exists) {
    try {
      await mkdir(file.dir, { recursive: true });
    } catch (err) {
      throw cannot(`cannot create directory ${file.dir}: ${errorMessage(err)}`);
    }
    // a journal without its snapshot is left over from a deleted database:
    // ignored, and truncated by the first snapshot write
    const store = new LocalStore({ state: new Map(), seq: 0, low, file, snapshotOnDisk: false, lock, hold: options.holdNewFile === true, undoOpen: undoMkdir });
    return { store, fresh: true, staleLock, warnings: [] };
  }

  try {
    await low.read();
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw cannot(errorMessage(err));
  }
  const snapshot = low.data;
  const state = stateFromCollections(snapshot.collections, snapshot.seq, cannot);

  let journalText = '';
  try {
    journalText = await readFile(file.journalPath, 'utf8');
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw cannot(`cannot read journal ${file.journalPath}: ${errorMessage(err)}`);
  }
  const { entries, tornTail } = parseJournal(journalText, file.journalPath, snapshot.seq);
  const warnings = tornTail
    ? [`dropped the last line of ${file.journalPath}: it was cut short by a crash while being written, so that write was never acknowledged`]
    : [];
  let seq = snapshot.seq;
  for (const entry of entries) {
    applyOps(state, entry.ops, entry.seq);
    seq = entry.seq;
  }

  const store = new LocalStore({ state, seq, low, file, snapshotOnDisk: true, lock });
  try {
    if (entries.length > 0) {
      await store.compact(); // make the snapshot file self-contained again
    } else if (journalText.length > 0) {
      await store.truncateJournal(); // only stale or torn lines: the snapshot has everything
    }
  } catch (err) {
    await store.abandon().catch(() => undefined);
    throw err instanceof StoreError ? err : cannot(errorMessage(err));
  }
  return { store, fresh: false, staleLock, warnings };
}
