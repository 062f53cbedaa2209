/**
 * The storage engine's file side (file mode only): the append-only NDJSON
 * journal with group commit, and the snapshot file. LocalStore (store.ts)
 * applies commits to memory and hands each one's journal line here; this class
 * decides what is written when, and who waits for it. The writing itself, and
 * the sizes the compaction rule weighs, are DatabaseFiles' (database-files.ts).
 *
 * Durability protocol (docs/storage.md, "Write sequence"):
 *  - append(): the line is queued. A single drain loop owns the files (the
 *    flush lock): it appends everything queued so far in one write + fdatasync,
 *    then resolves all those commits together.
 *  - snapshot (replaceAll, every `compactAfter` journalled commits or once the
 *    journal outgrows the snapshot, close, after a failed write): done by the
 *    same loop, so no append can interleave. The state is captured
 *    synchronously (SnapshotSource), written by lowdb's Low.write() through the
 *    snapshot file's adapter (snapshot-file.ts: temp file, fsync, rename, fsync
 *    directory), then the journal is truncated and fsynced. A crash in between
 *    leaves journal lines with seq <= snapshot seq, which load skips. The
 *    journal itself is appended to without lowdb: an adapter writes whole
 *    documents, and a commit is one line.
 */
import type { CommitGroup, GroupHolder } from './commit-group.ts';
import { DatabaseFiles, type CapturedSnapshot, type FileBackend } from './database-files.ts';
import { errorMessage, newBatch, type Batch } from './file-io.ts';
import { JournalQueue } from './journal-queue.ts';
import { StoreError, type StoreStats } from './types.ts';

/** What the store gives a snapshot write: its state as of now. */
export interface SnapshotSource {
  /**
   * Captures the state now, in the tick the drain took the pending batch, so
   * the snapshot holds exactly the commits resolved with it; `done()` ends the
   * copy-on-write window the capture opened.
   */
  capture(): CapturedSnapshot;
}

export class FileWriter implements GroupHolder {
  /** the journal and the snapshot file, written only by the drain loop (and at open, before it runs) */
  readonly #files: DatabaseFiles;
  /** commits waiting for a flush, with the open groups' lines held (journal-queue.ts) */
  readonly #queue = new JournalQueue();
  /** waiters for the next pass of the drain loop that does what they asked (a snapshot, or any flush) */
  #pending: Batch | null = null;
  /** the drain loop, while it runs (the flush lock) */
  #draining: Promise<void> | null = null;
  /** the next flush must write the snapshot (replaceAll, or a failed write) */
  #forceSnapshot = false;
  /** compact() asked for a snapshot */
  #compactRequested = false;
  /**
   * Watch mode: a compaction that found a hand edit in place (DatabaseFiles spares it) appended
   * to the journal instead, and waits for the next compact().
   */
  #waitingForEdit = false;

  /**
   * A new file is not written yet: writes queue up until startWriting(), so a
   * start that fails to listen leaves no database behind. A commit
   * or a flush ends the hold at once: whoever waits on one is never kept waiting.
   */
  #holding: boolean;

  constructor(
    private readonly file: FileBackend,
    private readonly stats: StoreStats,
    private readonly source: SnapshotSource,
    snapshot: { onDisk: boolean; seq: number; hold?: boolean },
  ) {
    this.#files = new DatabaseFiles(file, stats, snapshot);
    this.#holding = !snapshot.onDisk && snapshot.hold === true;
  }

  /** whether nothing has been written yet because of the hold */
  get holding(): boolean {
    return this.#holding;
  }

  /** Ends the hold: what was queued is written now; resolves once it is durable. */
  startWriting(): Promise<void> {
    if (!this.#holding) return this.flush();
    this.#holding = false;
    const waiting = this.#queue.tail?.promise ?? this.#pending?.promise;
    if (!waiting) return Promise.resolve();
    this.#kick();
    return waiting;
  }

  /**
   * Queues one commit's journal line; resolves once it is durable. A commit of an
   * open group is held until the group is released, and resolves at once: the
   * group's close is what waits (commit-group.ts).
   */
  append(line: string, grouped?: { group: CommitGroup; seq: number; opsJson: string }): Promise<void> {
    if (this.#holding) void this.startWriting();
    if (grouped) {
      grouped.group.holdIn(this);
      void this.#queue.add(grouped);
      return Promise.resolve();
    }
    const durable = this.#queue.add({ line, group: null });
    if (!this.#holding) this.#kick();
    return durable;
  }

  /** GroupHolder: a cut request's lines are never written. */
  dropGroup(group: CommitGroup): void {
    this.#queue.drop(group);
    if (!this.#holding) this.#kick();
  }

  /** GroupHolder: the group's lines may be written; resolves once they are durable. */
  releaseGroup(group: CommitGroup): Promise<void> {
    const durable = this.#queue.release(group);
    if (!this.#holding) this.#kick();
    return durable;
  }

  /**
   * At close: the groups still open are dropped (journal-queue.ts, abandonOpen);
   * returns how many. The caller then flushes instead of compacting, so memory,
   * which holds their commits, is not written either.
   */
  abandonOpenGroups(): number {
    const dropped = this.#queue.abandonOpen();
    if (dropped > 0 && !this.#holding) this.#kick();
    return dropped;
  }

  /** The next flush writes a whole snapshot (the state was replaced). */
  snapshotNext(): Promise<void> {
    this.#forceSnapshot = true;
    return this.#batch().promise;
  }

  /** Resolves once everything committed so far is durable, the lines of open groups included. */
  flush(): Promise<void> {
    if (this.#holding) return this.startWriting();
    const tail = this.#queue.tail;
    if (tail) return tail.promise;
    if (this.#pending) return this.#pending.promise;
    // something in flight, or a write failed and must be redone as a snapshot
    if (this.#draining || this.#forceSnapshot) return this.#batch().promise;
    return Promise.resolve();
  }

  /** Writes a snapshot and empties the journal; nothing to do before the first write (`seq` 0). */
  compact(seq: number): Promise<void> {
    if (!this.#files.snapshotOnDisk && seq === 0) return Promise.resolve();
    this.#compactRequested = true;
    this.#waitingForEdit = false;
    const written = this.#batch().promise;
    if (this.#holding) void this.startWriting(); // asked for: a close, or watch mode
    return written;
  }

  /** seq contained in the snapshot file (0: none written yet) */
  get snapshotSeq(): number {
    return this.#files.snapshotSeq;
  }

  /** Watch mode: compactions leave a hand edit in place until it is dealt with. */
  spareEdits(): void {
    this.#files.spareEdits();
  }

  /**
   * At close: the last snapshot of a watching store goes in place whatever the file
   * holds; an edit nobody dealt with is set aside and reported (snapshot-file.ts). Returns whether the
   * close must write a snapshot even with nothing new: a watched file may hold an edit.
   */
  finalSnapshot(report: (aside: string) => void): boolean {
    if (!this.#files.stopSparing(report)) return false;
    this.#waitingForEdit = false;
    return true;
  }

  /** whether the files lag behind memory at `seq` (close then compacts) */
  dirty(seq: number): boolean {
    return seq !== this.#files.snapshotSeq || this.stats.journalledCommits > 0 || this.#forceSnapshot;
  }

  /** Waits for the drain loop and closes the journal (close, or a failed open). */
  async release(): Promise<void> {
    await this.#draining?.catch(() => undefined);
    await this.#files.close();
  }

  /** Used at open when the journal holds nothing newer than the snapshot. */
  truncateJournal(): Promise<void> {
    return this.#files.truncateJournal();
  }

  // ---------------------------------------------------------------- internals

  /** The batch that the next flush will write; starts the drain loop if idle. */
  #batch(): Batch {
    if (!this.#pending) {
      this.#pending = newBatch();
      if (!this.#holding) this.#kick();
    }
    return this.#pending;
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = null;
      if (this.#waitsForNothing()) this.#kick();
    });
  }

  /** Whether the drain loop has something it may do now (else a release or a new commit kicks it). */
  #waitsForNothing(): boolean {
    if ((this.#forceSnapshot || !this.#files.snapshotOnDisk) && this.#queue.hasOpen) return false;
    if (this.#queue.hasReady) return true;
    return this.#pending !== null && !(this.#queue.hasOpen && this.#compactionDue());
  }

  #compactionDue(): boolean {
    if (this.#forceSnapshot || this.#compactRequested) return true;
    if (this.#waitingForEdit) return false;
    return this.stats.journalledCommits >= this.file.compactAfter || this.#files.journalOutgrown;
  }

  /**
   * The flush lock: only this loop touches the files once the store is open. A
   * snapshot is never taken while a group holds lines: memory holds part of that
   * request, and the snapshot would make that part durable without the rest. It
   * waits for the group's release (which kicks the loop); the lines before the
   * group are journalled meanwhile.
   */
  async #drain(): Promise<void> {
    await null; // let commits issued in the same tick join the first batch
    let failed = false;
    for (;;) {
      const mustSnapshot = this.#forceSnapshot || !this.#files.snapshotOnDisk;
      const compacting = mustSnapshot || this.#compactionDue();
      const canSnapshot = compacting && !this.#queue.hasOpen;
      const hasWork = this.#pending !== null || this.#queue.hasReady;
      if (!hasWork && (failed || !canSnapshot)) return;
      if (!canSnapshot && mustSnapshot) return; // nothing may be journalled before that snapshot
      const units = this.#queue.takeReady(); // all of the queue when a snapshot is taken: no group holds lines
      // a waiter for a snapshot stays for the pass that writes it
      const batch = canSnapshot || !compacting ? this.#pending : null;
      if (batch) this.#pending = null;
      if (!canSnapshot && !batch && units.length === 0) return;
      try {
        if (!canSnapshot) await this.#files.append(units);
        else if (!(await this.#writeSnapshot(!mustSnapshot))) {
          // a hand edit is on disk: the batch goes to the journal, which the edit's load
          // replays; the next snapshot waits for a compact() (the watcher deals with the edit)
          this.#waitingForEdit = true;
          await this.#files.append(units);
        }
        failed = false;
        for (const unit of units) unit.resolve();
        batch?.resolve();
      } catch (err) {
        failed = true;
        // memory is ahead of the files and the journal may end in a partial
        // line: never append again before a snapshot has been written
        this.#forceSnapshot = true;
        const error = new StoreError(`Cannot write database ${this.file.path}: ${errorMessage(err)}`, { cause: err });
        for (const unit of units) unit.reject(error);
        batch?.reject(error);
      }
    }
  }

  /** False when it `mayWait` and the file holds a hand edit that is spared: nothing written. */
  async #writeSnapshot(mayWait: boolean): Promise<boolean> {
    // The capture is copy-on-write (O(partitions)), and the text is produced slice
    // by slice, so commits and requests go on while 100k records are written.
    const snapshot = this.source.capture();
    // cleared now, not once written: a replaceAll() or compact() while this one is being
    // written asks for another snapshot, of a state this one does not hold
    this.#forceSnapshot = false;
    this.#compactRequested = false;
    if (!(await this.#files.writeSnapshot(snapshot, mayWait))) return false;
    this.#waitingForEdit = false;
    return true;
  }
}
