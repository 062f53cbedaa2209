/**
 * Opening a database: in memory, a new file (seeded by the caller), or an
 * existing snapshot plus journal, validated and replayed.
 */
import { mkdir, readFile, rename, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Low, Memory } from 'lowdb';
import { applyOps, emptySnapshot, stateFromCollections } from './codec.ts';
import { JournalMismatchError, parseJournal, type ParsedJournal } from './journal-text.ts';
import { parseSnapshotText } from './snapshot-text.ts';
import type { FileBackend } from './database-files.ts';
import { errorMessage, fsyncDir, isErrno } from './file-io.ts';
import { SnapshotFile, type SnapshotData } from './snapshot-file.ts';
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
    const low = new Low<SnapshotData>(new Memory<SnapshotData>(), emptySnapshot());
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

async function openFile(
  path: string,
  compactAfter: number,
  options: OpenStoreOptions,
  lock: HeldLock | null,
  undoMkdir: () => Promise<void>,
): Promise<OpenedInstrumentedStore> {
  const staleLock = lock?.tookOver ?? null;

  // every snapshot is written through lowdb: Low.write() over the file's durable adapter
  const snapshotFile = new SnapshotFile(path, options.fsync ?? true);
  const low = new Low<SnapshotData>(snapshotFile, emptySnapshot());
  const file: FileBackend = {
    path,
    low,
    snapshotFile,
    journalPath: `${path}.journal`,
    dir: dirname(path),
    fsync: options.fsync ?? true,
    compactAfter,
  };
  const cannot = (problem: string) => new StoreError(`Cannot open database ${path}: ${problem}`);
  const reopenedFromBeside = async (found: string, aside: string) => {
    const reopened = await openFile(path, compactAfter, options, lock, undoMkdir);
    reopened.warnings.unshift(
      `${found} that was never loaded before the sandbox stopped; set aside as ${aside}, and started from the sandbox's own last snapshot and its journal: no write lost`,
    );
    return reopened;
  };

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
    // half an editor's save under --watch, then kill -9: the sandbox's own last snapshot is beside it
    const aside = await adoptBeside(path, snapshotFile.besidePath, { fileSeq: null, journalSeq: null });
    if (aside) return reopenedFromBeside(`${basename(path)} could not be read (${errorMessage(err).replace(/^Cannot open database [^:]*: /, '')})`, aside);
    if (err instanceof StoreError) throw err;
    throw cannot(errorMessage(err));
  }
  const snapshot = low.data as DbSnapshot; // what read() found in the file
  const state = stateFromCollections(snapshot.collections, snapshot.seq, cannot);

  let journalText = '';
  try {
    journalText = await readFile(file.journalPath, 'utf8');
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw cannot(`cannot read journal ${file.journalPath}: ${errorMessage(err)}`);
  }
  const warnings: string[] = [];
  let parsed: ParsedJournal;
  try {
    parsed = parseJournal(journalText, file.journalPath, snapshot.seq);
  } catch (err) {
    if (!(err instanceof JournalMismatchError)) throw err;
    // an edit saved under --watch, and the process died before the watcher dealt with it: the
    // sandbox's own last snapshot is beside it, and the journal goes on from that one
    const aside = await adoptBeside(path, snapshotFile.besidePath, { fileSeq: err.snapshotSeq, journalSeq: err.journalSeq });
    if (aside) return reopenedFromBeside(`${basename(path)} held a hand edit (seq ${err.snapshotSeq})`, aside);
    if (!options.recover) throw cannot(mismatchAdvice(err, file.journalPath));
    const journalAside = await setJournalAside(file.journalPath, err);
    warnings.push(
      `recovered: ${basename(file.journalPath)} (writes from seq ${err.journalSeq}) did not continue ${basename(path)} (seq ${err.snapshotSeq}); set aside as ${journalAside}, started from ${basename(path)} as it is`,
    );
    journalText = '';
    parsed = { entries: [], tornTail: false };
  }
  // an older copy saved over the file under --watch, then kill -9 right after a compaction (an
  // empty journal, so nothing above noticed): the sandbox's own last snapshot beside it is newer
  if (parsed.entries.length === 0) {
    const aside = await adoptBeside(path, snapshotFile.besidePath, { fileSeq: snapshot.seq, journalSeq: null });
    if (aside) return reopenedFromBeside(`${basename(path)} held an older copy (seq ${snapshot.seq})`, aside);
  }
  const { entries, tornTail } = parsed;
  if (tornTail)
    warnings.push(`dropped the last line of ${file.journalPath}: it was cut short by a crash while being written, so that write was never acknowledged`);
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
  // the file and its journal agree: a copy a killed watcher left beside the file has no use now
  snapshotFile.dropBeside();
  return { store, fresh: false, staleLock, warnings };
}

/** One line: both seqs, what happened, and the one command that recovers. */
function mismatchAdvice(err: JournalMismatchError, journalPath: string): string {
  return (
    `its journal ${basename(journalPath)} continues at seq ${err.journalSeq} but the file is at seq ${err.snapshotSeq}, so the writes between are in neither (the file was replaced by an older copy); ` +
    'start with --recover (createSandbox: recover: true) to set the journal aside beside it and start from the file as it is'
  );
}

/** `<journal>.unmatched-from-seq<N>`, numbered if that name is taken: nothing is overwritten. */
async function setJournalAside(journalPath: string, err: JournalMismatchError): Promise<string> {
  for (let n = 1; ; n++) {
    const aside = `${journalPath}.unmatched-from-seq${err.journalSeq}${n === 1 ? '' : `-${n}`}`;
    const taken = await stat(aside).then(
      () => true,
      () => false,
    );
    if (taken) continue;
    await rename(journalPath, aside);
    return basename(aside);
  }
}

/**
 * The snapshot a watching sandbox keeps beside its file (snapshot-file.ts, #keepBeside and #copyBeside),
 * adopted when the file is not what the journal goes on from: unreadable (`fileSeq` null), older
 * than it, or not continued by the journal (`journalSeq`), while the journal continues it. The
 * file is renamed aside (`<file>.unloaded-edit-seq<N>`, never over one set aside before) and that
 * snapshot put in its place. Returns the file's new name, or null when there is no such snapshot.
 */
async function adoptBeside(path: string, besidePath: string, found: { fileSeq: number | null; journalSeq: number | null }): Promise<string | null> {
  let beside: DbSnapshot;
  try {
    beside = parseSnapshotText(await readFile(besidePath, 'utf8'), besidePath);
  } catch {
    return null; // none, or not whole: the refusal (or --recover) stands
  }
  if (found.journalSeq !== null ? beside.seq + 1 < found.journalSeq : found.fileSeq !== null && beside.seq <= found.fileSeq) return null;
  const aside = `${path}.unloaded-edit-seq${found.fileSeq ?? 'unreadable'}`;
  if (
    await stat(aside).then(
      () => true,
      () => false,
    )
  )
    return null;
  await rename(path, aside);
  await rename(besidePath, path);
  await fsyncDir(dirname(path));
  return basename(aside);
}
