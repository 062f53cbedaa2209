/**
 * The two files of a database as FileWriter (file-writer.ts) writes them: the
 * journal, appended to with fdatasync, and the snapshot, written whole before
 * the journal is emptied. FileWriter decides when each is written and who waits
 * for it; this class does the writing, knows what the snapshot file holds,
 * counts the writes (StoreStats), and weighs what the compaction rule's size
 * half compares: the journal's bytes since the last snapshot against that
 * snapshot's size.
 */
import { open, stat, type FileHandle } from 'node:fs/promises';
import type { Low } from 'lowdb';
import { journalText, type Unit } from './journal-queue.ts';
import type { SnapshotData, SnapshotFile, SnapshotWrite } from './snapshot-file.ts';
import { SCHEMA_VERSION, type StoreStats } from './types.ts';

/** A database's files (file mode): the snapshot file, written through lowdb, and the journal beside it. */
export interface FileBackend {
  path: string;
  /** lowdb's database of the snapshot file: every snapshot is written by `low.write()`, through `snapshotFile` */
  low: Low<SnapshotData>;
  /** the snapshot file's lowdb adapter, also what it knows of the file's content (watch mode) */
  snapshotFile: SnapshotFile;
  journalPath: string;
  dir: string;
  fsync: boolean;
  compactAfter: number;
}

/**
 * The journal is compacted early once it holds more bytes than the snapshot (and at
 * least this much), so the files stay within about twice the data whatever the size
 * of each commit: 20,000 commits of 4 KB rows were an 80 MB journal beside a 7 MB
 * snapshot in the outbox soak (docs/storage.md, "Data flows": a compaction).
 */
export const JOURNAL_COMPACT_MIN_BYTES = 32 * 1024 * 1024;

/** What a snapshot write takes from the store: its state, captured copy-on-write until done() (store.ts). */
export interface CapturedSnapshot {
  seq: number;
  chunks: Iterable<string>;
  done(): void;
}

export class DatabaseFiles {
  /** opened on the first write (created then: its directory entry is synced with the snapshot's rename) */
  #journal: FileHandle | null = null;
  #journalBytesSinceSnapshot = 0;
  /** the last snapshot's size; 0 until it is measured */
  #snapshotBytes = 0;
  #snapshotOnDisk: boolean;
  #snapshotSeq: number;
  /**
   * Watch mode: a snapshot that may wait is not renamed over a hand edit nobody
   * has dealt with yet (snapshot-file.ts, `unlessEdited`).
   */
  #sparing = false;
  /** where the last snapshot of a watching store reports an edit it set aside (stopSparing) */
  #setAside: ((aside: string) => void) | null = null;

  constructor(
    private readonly file: FileBackend,
    private readonly stats: StoreStats,
    snapshot: { onDisk: boolean; seq: number },
  ) {
    this.#snapshotOnDisk = snapshot.onDisk;
    this.#snapshotSeq = snapshot.onDisk ? snapshot.seq : 0;
  }

  /** whether the snapshot file exists (with everything up to snapshotSeq but the journalled commits) */
  get snapshotOnDisk(): boolean {
    return this.#snapshotOnDisk;
  }

  /** seq contained in the snapshot file (0: none written yet) */
  get snapshotSeq(): number {
    return this.#snapshotSeq;
  }

  /** Watch mode: snapshots that may wait leave a hand edit in place until it is dealt with. */
  spareEdits(): void {
    this.#sparing = true;
  }

  /**
   * At close: the last snapshot goes in place whatever the file holds; an edit
   * nobody dealt with is set aside and `report`ed (snapshot-file.ts). Returns whether edits were
   * being spared (then the file may hold one).
   */
  stopSparing(report: (aside: string) => void): boolean {
    if (!this.#sparing) return false;
    this.#sparing = false;
    this.#setAside = report;
    return true;
  }

  /** The compaction rule's size half: the journal has outgrown the snapshot (the count half is FileBackend.compactAfter). */
  get journalOutgrown(): boolean {
    return this.#journalBytesSinceSnapshot >= Math.max(JOURNAL_COMPACT_MIN_BYTES, this.#snapshotBytes);
  }

  /** Appends the units' lines in one write + fdatasync. */
  async append(units: readonly Unit[]): Promise<void> {
    const { text, commits } = journalText(units);
    if (commits === 0) return;
    const journal = await this.#openJournal();
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await journal.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
    }
    if (this.file.fsync) await journal.datasync();
    this.stats.flushes++;
    this.stats.journalBytes += buffer.length;
    this.#journalBytesSinceSnapshot += buffer.length;
    // the snapshot this process found at open: its size, once, for the rule above
    if (this.#snapshotOnDisk && this.#snapshotBytes === 0) this.#snapshotBytes = await this.#snapshotSize();
    this.stats.journalledCommits += commits;
  }

  /**
   * Writes the snapshot, then empties the journal. False when it `mayWait`, edits are spared
   * and the file holds one: nothing written (snapshot-file.ts).
   */
  async writeSnapshot(snapshot: CapturedSnapshot, mayWait: boolean): Promise<boolean> {
    const write: SnapshotWrite = {
      kind: 'snapshot-write',
      seq: snapshot.seq,
      chunks: snapshot.chunks,
      unlessEdited: mayWait && this.#sparing,
      ...(this.#setAside ? { setAsideEdit: this.#setAside } : {}),
    };
    const { low } = this.file;
    try {
      await this.#openJournal(); // created on first write; its dir entry is synced with the rename
      // through lowdb: Low.write() hands the snapshot to the file's adapter (snapshot-file.ts), which
      // streams it to a temp file, fsyncs it, renames it over the snapshot and fsyncs the directory,
      // so the new snapshot is durable before the journal shrinks
      low.data = write;
      await low.write();
    } finally {
      // between writes Low holds the file's header only: the chunks would keep the captured state alive
      low.data = { schemaVersion: SCHEMA_VERSION, seq: write.placed ? write.seq : this.#snapshotSeq, collections: {} };
      snapshot.done();
    }
    if (!write.placed) return false;
    await this.truncateJournal();
    this.#snapshotOnDisk = true;
    this.#snapshotSeq = snapshot.seq;
    // the journal is weighed against this snapshot from now on, and counted from nothing
    this.#snapshotBytes = await this.#snapshotSize();
    this.#journalBytesSinceSnapshot = 0;
    this.stats.snapshots++;
    this.stats.journalledCommits = 0;
    return true;
  }

  async truncateJournal(): Promise<void> {
    const journal = await this.#openJournal();
    await journal.truncate(0);
    if (this.file.fsync) await journal.datasync();
  }

  async close(): Promise<void> {
    const journal = this.#journal;
    this.#journal = null;
    await journal?.close();
  }

  async #openJournal(): Promise<FileHandle> {
    this.#journal ??= await open(this.file.journalPath, 'a');
    return this.#journal;
  }

  async #snapshotSize(): Promise<number> {
    return (await stat(this.file.path).catch(() => ({ size: 0 }))).size;
  }
}
