/**
 * The storage engine: in-memory partitions, and in file mode a snapshot file
 * written through lowdb and an append-only journal, both owned by FileWriter
 * (file-writer.ts, where the durability protocol is described). Commits are applied to memory
 * at once and acknowledged when the writer has them on disk. This file holds
 * the writes and the lifecycle; the reads of the rows in memory are
 * store-reads.ts, which the engine extends.
 *
 * Load (open-store.ts): snapshot, then journal lines with seq > snapshot.seq. A
 * final line without newline or that does not parse was never acknowledged:
 * dropped.
 */
import { ChangeFeed } from './change-feed.ts';
import { currentCommitGroup, inDroppedGroup } from './commit-group.ts';
import type { HeldLock } from './lock.ts';
import type { FileBackend } from './database-files.ts';
import type { Low } from 'lowdb';
import { FileWriter } from './file-writer.ts';
import { readFileEdit, RecentWrites } from './hand-edits.ts';
import { applyOps, captureState, prepareOps, stateFromCollections, type PreparedCommit, type State } from './codec.ts';
import { LazyState } from './lazy-state.ts';
import { noteForegroundWrite, PackedRows } from './large-files/index.ts';
import type { SnapshotData } from './snapshot-file.ts';
import { capturedChunks } from './snapshot-text.ts';
import { StoreReads } from './store-reads.ts';
import {
  InvalidOpError,
  isDeferred,
  SCHEMA_VERSION,
  StoreError,
  type CommitOptions,
  type FileEdit,
  type InitialCollections,
  type InstrumentedStore,
  type Op,
  type ReplaceOptions,
  type StoreChange,
  type StoreStats,
} from './types.ts';

export const DEFAULT_COMPACT_AFTER_COMMITS = 20_000;

export interface StoreInit {
  state: State;
  seq: number;
  /** lowdb's database: over the snapshot file's adapter (the same as file.low), or in memory */
  low: Low<SnapshotData>;
  file: FileBackend | null;
  /** the snapshot file exists and contains everything up to `seq` except journalled commits */
  snapshotOnDisk: boolean;
  /** the one-writer lock, released on close (file mode) */
  lock?: HeldLock | null;
  /** a new file: hold its first write until writeHeld() (OpenStoreOptions.holdNewFile) */
  hold?: boolean;
  /** removes what opening created (the database's directory), when a held store is discarded */
  undoOpen?: () => Promise<void>;
}

export class LocalStore extends StoreReads implements InstrumentedStore {
  readonly path: string | null;
  /** one line each: what closing had to set aside (an unloaded hand edit, watch mode) */
  readonly notes: string[] = [];
  readonly stats: StoreStats = { commits: 0, flushes: 0, journalBytes: 0, snapshots: 0, journalledCommits: 0 };

  #seq: number;
  readonly #changes = new ChangeFeed();
  /** lowdb's database: in memory, what replaceAll() writes (file mode writes through file.low) */
  readonly #low: Low<SnapshotData>;
  readonly #file: FileBackend | null;
  /** the journal and the snapshot file (file mode) */
  readonly #writer: FileWriter | null;
  #closing: Promise<void> | null = null;
  readonly #lock: HeldLock | null;
  readonly #undoOpen: (() => Promise<void>) | null;
  /** generation of the last snapshot capture, and of the one being written now (0: none) */
  #snapshotGen = 0;
  #writingGen = 0;
  /** watch mode: the writes not yet in the snapshot file, for a hand edit's load (hand-edits.ts) */
  #recent: RecentWrites | null = null;

  constructor(init: StoreInit) {
    super(init.state, init.seq);
    this.#lock = init.lock ?? null;
    this.#undoOpen = init.undoOpen ?? null;
    this.#seq = init.seq;
    this.#low = init.low;
    this.#file = init.file;
    this.path = init.file?.path ?? null;
    this.#writer = init.file
      ? new FileWriter(
          init.file,
          this.stats,
          { capture: () => this.#capture() },
          { onDisk: init.snapshotOnDisk, seq: init.low.data.seq, hold: init.hold === true },
        )
      : null;
    // The state holds the rows; the parsed file's partition objects (one key per
    // row, a second copy of every id) are not needed once it is built: ~100 bytes
    // per row at 100k bookings (docs/storage.md "Memory per row").
    init.low.data = { schemaVersion: SCHEMA_VERSION, seq: init.low.data.seq, collections: {} };
  }

  get seq(): number {
    return this.#seq;
  }

  // ---------------------------------------------------------------- changes (the reads are store-reads.ts)

  onChange(listener: (change: StoreChange) => void): () => void {
    return this.#changes.listen(listener);
  }

  // ---------------------------------------------------------------- writes

  commit(ops: readonly Op[], options: CommitOptions = {}): Promise<void> {
    if (this.#closing) return Promise.reject(this.#closedError());
    if (this.#writer && inDroppedGroup())
      return Promise.reject(new StoreError('the request was cut at the stop deadline (answered 503): nothing it writes is kept'));
    let prepared: PreparedCommit;
    try {
      const interned = (collection: string, workspaceId: string) => !(this.state.get(collection)?.get(workspaceId)?.rows instanceof PackedRows);
      prepared = prepareOps(ops, this.#file !== null, interned, options.rowsGiven === true);
    } catch (err) {
      return Promise.reject(err);
    }
    const group = this.#writer ? currentCommitGroup() : undefined;
    // in a request's group, nothing of its own may wait for the group's close
    if (prepared.ops.length === 0) return group ? Promise.resolve() : this.flush();
    const seq = ++this.#seq;
    applyOps(this.state, prepared.ops, seq, this.#writingGen);
    noteForegroundWrite();
    this.stats.commits++;
    this.#recent?.add(seq, prepared.ops, this.#writer!.snapshotSeq);
    this.#changes.emit({ kind: 'ops', ops: prepared.ops });
    if (!this.#writer) return Promise.resolve();
    const opsJson = prepared.opsJson!;
    return this.#writer.append(group ? '' : `{"seq":${seq},"ops":[${opsJson}]}\n`, group && { group, seq, opsJson });
  }

  replaceAll(collections: InitialCollections, options: ReplaceOptions = {}): Promise<void> {
    if (this.#closing) return Promise.reject(this.#closedError());
    // its snapshot must not wait for the close of the request that asked for it (a reset, a
    // restore): what that request committed before is released, and it goes on ungrouped
    currentCommitGroup()?.release();
    const seq = this.#seq + 1;
    const makeError = (problem: string) => new InvalidOpError(`replaceAll(): ${problem}`);
    let state: State;
    try {
      state = isDeferred(collections) ? new LazyState(collections, seq, makeError) : stateFromCollections(collections, seq, makeError);
      // a hand edit: the writes made since the file's seq go on top, in this same tick
      if (options.writesAfter !== undefined) this.#replayOnto(state, options.writesAfter, seq);
    } catch (err) {
      return Promise.reject(err);
    }
    this.#recent?.replaced(seq);
    this.#seq = seq;
    this.state = state;
    this.baseVersion = seq;
    this.#changes.emit({ kind: 'replaced' });
    if (!this.#writer) {
      // not `collections` itself: its partition objects would be kept beside the state
      this.#low.data = { schemaVersion: SCHEMA_VERSION, seq, collections: {} };
      return this.#low.write();
    }
    return this.#writer.snapshotNext();
  }

  flush(): Promise<void> {
    return this.#writer ? this.#writer.flush() : Promise.resolve();
  }

  compact(): Promise<void> {
    return this.#writer ? this.#writer.compact(this.#seq) : Promise.resolve();
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // in memory there is nothing to write: the state ends with the process (and a
    // deferred collection is never parsed just to be dropped)
    const writer = this.#writer;
    if (!writer) return;
    try {
      // a request cut at the stop deadline: none of it is written, and memory, which holds
      // part of it, is not snapshotted; the journal holds every acknowledged write
      const cut = writer.abandonOpenGroups();
      const watched = writer.finalSnapshot((aside) =>
        this.notes.push(
          `${aside}: ${this.path} was edited by hand as the sandbox stopped, and nobody had loaded the edit; it was set aside under this name, and the file holds every write`,
        ),
      );
      await (cut === 0 && (watched || writer.dirty(this.#seq)) ? this.compact() : this.flush());
    } finally {
      await writer.release();
      this.#lock?.release();
    }
  }

  // ---------------------------------------------------------------- internals

  #closedError(): StoreError {
    return new StoreError(`Store ${this.path ?? '(in-memory)'} is closed`);
  }

  /** The state for a snapshot write (file-writer.ts): captured now, copy-on-write until done. */
  #capture(): { seq: number; chunks: Iterable<string>; done(): void } {
    const seq = this.#seq;
    const gen = ++this.#snapshotGen;
    const captured = captureState(this.state, gen);
    this.#writingGen = gen;
    return {
      seq,
      chunks: capturedChunks(captured, seq),
      done: () => {
        this.#writingGen = 0;
      },
    };
  }

  async trackHandEdits(): Promise<void> {
    if (!this.#writer || this.#recent) return;
    this.#recent = new RecentWrites(this.#seq);
    this.#writer.spareEdits();
    await this.#file!.snapshotFile.known.track();
    // from now on an editor may save an older copy over the file: the snapshot the journal goes on
    // from is kept beside it too (snapshot-file.ts), so a kill -9 before the watcher looks loses nothing
    await this.#file!.snapshotFile.keepCopyBeside();
  }

  async readFileEdit(): Promise<FileEdit> {
    if (!this.#file) throw new StoreError('An in-memory database has no file to read');
    return readFileEdit(this.#file);
  }

  noteEditHandled(hash: string): void {
    this.#file?.snapshotFile.known.noteHandled(hash);
  }

  #replayOnto(state: State, after: number, version: number): void {
    if (!this.#recent || !this.#file) {
      if (after === this.#seq) return; // nothing written since
      throw new StoreError(`a hand edit of the database at seq ${after} cannot be loaded: the writes since are not kept (not watching)`);
    }
    this.#recent.replayOnto(state, after, this.#seq, this.#writer!.snapshotSeq, this.#file.path, version);
  }

  /** Writes what a new file held back (OpenStoreOptions.holdNewFile); resolves once it is durable. */
  writeHeld(): Promise<void> {
    return this.#writer ? this.#writer.startWriting() : Promise.resolve();
  }

  /**
   * A start that failed before it listened: while the new file's first write is
   * still held, nothing was written nor acknowledged, so the store lets go of its
   * lock and leaves nothing behind (true). Otherwise it closes as usual (false).
   */
  async discardHeld(): Promise<boolean> {
    if (!this.#writer?.holding) {
      await this.close();
      return false;
    }
    await this.abandon();
    await this.#undoOpen?.();
    return true;
  }

  /** Releases the journal without writing anything (failed open). */
  async abandon(): Promise<void> {
    this.#closing ??= Promise.resolve();
    await this.#writer?.release();
    this.#lock?.release();
  }

  /** Used at open when the journal holds nothing newer than the snapshot. */
  truncateJournal(): Promise<void> {
    return this.#writer!.truncateJournal();
  }
}
