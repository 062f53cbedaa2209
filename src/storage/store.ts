/**
 * The storage engine: in-memory partitions + (file mode) a lowdb snapshot file
 * and an append-only NDJSON journal with group commit.
 *
 * Durability protocol (file mode):
 *  - commit(): ops are applied to memory at once, serialised once into one
 *    journal line `{"seq":n,"ops":[...]}\n`, and queued. A single "drain" loop
 *    owns the files (the flush lock): it appends everything queued so far in one
 *    write + fdatasync, then resolves all those commits together.
 *  - snapshot (seed/replaceAll, every `compactAfterCommits` journalled commits,
 *    close(), after a failed write): done by the same loop, so no append can
 *    interleave. State is captured synchronously, written through lowdb's
 *    DurableJsonFile adapter (temp file, fsync, rename, fsync directory), then
 *    the journal is truncated and fsynced. A crash in between leaves journal
 *    lines with seq <= snapshot seq, which load skips (docs/storage.md).
 *  - load: snapshot, then journal lines with seq > snapshot.seq. A final line
 *    without newline or that does not parse was never acknowledged: dropped.
 */
import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import type { Low } from 'lowdb';
import type { HeldLock } from './lock.ts';
import { errorMessage, newBatch, type Batch, type FileBackend } from './file-io.ts';
import {
  applyOps,
  captureState,
  collectionsFromState,
  prepareOps,
  stateFromCollections,
  type PreparedCommit,
  type State,
} from './codec.ts';
import { jsonWithSpans } from './deferred.ts';
import { LazyState } from './lazy-state.ts';
import { capturedChunks, parseSnapshotText } from './snapshot-text.ts';
import {
  InvalidOpError,
  isDeferred,
  SCHEMA_VERSION,
  StoreError,
  type Collections,
  type DbSnapshot,
  type InitialCollections,
  type InstrumentedStore,
  type Op,
  type Row,
  type SpannedJson,
  type StoreChange,
  type StoreStats,
} from './types.ts';

export const DEFAULT_COMPACT_AFTER_COMMITS = 20_000;

const EMPTY_LIST: readonly Row[] = Object.freeze([]);

export interface StoreInit {
  state: State;
  seq: number;
  low: Low<DbSnapshot>;
  file: FileBackend | null;
  /** the snapshot file exists and contains everything up to `seq` except journalled commits */
  snapshotOnDisk: boolean;
  /** the one-writer lock, released on close (file mode) */
  lock?: HeldLock | null;
}

export class LocalStore implements InstrumentedStore {
  readonly path: string | null;
  readonly stats: StoreStats = { commits: 0, flushes: 0, journalBytes: 0, snapshots: 0, journalledCommits: 0 };

  #state: State;
  #seq: number;
  /** version of partitions that do not exist (bumped by replaceAll) */
  #baseVersion: number;
  readonly #listeners = new Set<(change: StoreChange) => void>();
  /** lowdb database: the snapshot holder (Memory adapter or DurableJsonFile) */
  readonly #low: Low<DbSnapshot>;
  readonly #file: FileBackend | null;
  #journal: FileHandle | null = null;
  /** commits waiting for the next flush */
  #pending: Batch | null = null;
  /** the drain loop, while it runs (the flush lock) */
  #draining: Promise<void> | null = null;
  #snapshotOnDisk: boolean;
  /** seq contained in the snapshot file */
  #snapshotSeq: number;
  #ownWrite: { ino: number; size: number; mtimeMs: number } | null = null;
  /** the next flush must write the snapshot (replaceAll, or a failed write) */
  #forceSnapshot = false;
  #closing: Promise<void> | null = null;
  readonly #lock: HeldLock | null;
  /** generation of the last snapshot capture, and of the one being written now (0: none) */
  #snapshotGen = 0;
  #writingGen = 0;

  constructor(init: StoreInit) {
    this.#lock = init.lock ?? null;
    this.#state = init.state;
    this.#seq = init.seq;
    this.#baseVersion = init.seq;
    this.#low = init.low;
    this.#file = init.file;
    this.path = init.file?.path ?? null;
    this.#snapshotOnDisk = init.snapshotOnDisk;
    this.#snapshotSeq = init.snapshotOnDisk ? init.low.data.seq : 0;
    // The state holds the rows; the parsed file's partition objects (one key per
    // row, a second copy of every id) are not needed once it is built: ~100 bytes
    // per row at 100k bookings (docs/storage.md "Memory per row").
    init.low.data = { schemaVersion: SCHEMA_VERSION, seq: init.low.data.seq, collections: {} };
  }

  get seq(): number {
    return this.#seq;
  }

  /** collections given deferred and not read yet (diagnostics, tests) */
  get pendingCollections(): string[] {
    return this.#state instanceof LazyState ? this.#state.pendingNames : [];
  }

  // ---------------------------------------------------------------- reads

  get<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, id: string): T | undefined {
    return this.#state.get(collection)?.get(workspaceId)?.rows.get(id) as T | undefined;
  }

  list<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): readonly T[] {
    const partition = this.#state.get(collection)?.get(workspaceId);
    if (!partition || partition.rows.size === 0) return EMPTY_LIST as readonly T[];
    partition.list ??= Object.freeze(Array.from(partition.rows.values()));
    return partition.list as readonly T[];
  }

  partitions(collection: string): string[] {
    const out: string[] = [];
    for (const [workspaceId, partition] of this.#state.get(collection) ?? []) {
      if (partition.rows.size > 0) out.push(workspaceId);
    }
    return out;
  }

  version(collection: string, workspaceId: string): number {
    return this.#state.get(collection)?.get(workspaceId)?.version ?? this.#baseVersion;
  }

  exportCollections(): Collections {
    return JSON.parse(JSON.stringify(collectionsFromState(this.#state))) as Collections;
  }

  serialize(): string {
    return JSON.stringify(this.#snapshot());
  }

  exportJson(): SpannedJson {
    return jsonWithSpans(collectionsFromState(this.#state));
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // ---------------------------------------------------------------- writes

  commit(ops: readonly Op[]): Promise<void> {
    if (this.#closing) return Promise.reject(this.#closedError());
    let prepared: PreparedCommit;
    try {
      prepared = prepareOps(ops, this.#file !== null);
    } catch (err) {
      return Promise.reject(err);
    }
    if (prepared.ops.length === 0) return this.flush();
    const seq = ++this.#seq;
    applyOps(this.#state, prepared.ops, seq, this.#writingGen);
    this.stats.commits++;
    this.#emit({ kind: 'ops', ops: prepared.ops });
    if (!this.#file) return Promise.resolve();
    const batch = this.#batch();
    batch.lines.push(`{"seq":${seq},"ops":[${prepared.opsJson}]}\n`);
    batch.commits++;
    return batch.promise;
  }

  replaceAll(collections: InitialCollections): Promise<void> {
    if (this.#closing) return Promise.reject(this.#closedError());
    const seq = this.#seq + 1;
    const makeError = (problem: string) => new InvalidOpError(`replaceAll(): ${problem}`);
    let state: State;
    try {
      state = isDeferred(collections) ? new LazyState(collections, seq, makeError) : stateFromCollections(collections, seq, makeError);
    } catch (err) {
      return Promise.reject(err);
    }
    this.#seq = seq;
    this.#state = state;
    this.#baseVersion = seq;
    this.#emit({ kind: 'replaced' });
    if (!this.#file) {
      // not `collections` itself: its partition objects would be kept beside the state
      this.#low.data = { schemaVersion: SCHEMA_VERSION, seq, collections: {} };
      return this.#low.write();
    }
    this.#forceSnapshot = true;
    return this.#batch().promise;
  }

  flush(): Promise<void> {
    if (!this.#file) return Promise.resolve();
    if (this.#pending) return this.#pending.promise;
    // something in flight, or a write failed and must be redone as a snapshot
    if (this.#draining || this.#forceSnapshot) return this.#batch().promise;
    return Promise.resolve();
  }

  compact(): Promise<void> {
    if (!this.#file) return Promise.resolve();
    if (!this.#snapshotOnDisk && this.#seq === 0) return Promise.resolve(); // nothing to write yet
    this.#forceSnapshot = true;
    return this.#batch().promise;
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    // in memory there is nothing to write: the state ends with the process (and a
    // deferred collection is never parsed just to be dropped)
    if (!this.#file) return;
    try {
      const dirty = this.#seq !== this.#snapshotSeq || this.stats.journalledCommits > 0 || this.#forceSnapshot;
      await (dirty ? this.compact() : this.flush());
    } finally {
      await this.#draining?.catch(() => undefined);
      const journal = this.#journal;
      this.#journal = null;
      await journal?.close();
      this.#lock?.release();
    }
  }

  // ---------------------------------------------------------------- internals

  #closedError(): StoreError {
    return new StoreError(`Store ${this.path ?? '(in-memory)'} is closed`);
  }

  #emit(change: StoreChange): void {
    if (this.#listeners.size === 0) return;
    for (const listener of Array.from(this.#listeners)) {
      try {
        listener(change);
      } catch (err) {
        // a listener must not break a commit that is already applied
        console.error('[storage] onChange listener threw:', err);
      }
    }
  }

  #snapshot(): DbSnapshot {
    return { schemaVersion: SCHEMA_VERSION, seq: this.#seq, collections: collectionsFromState(this.#state) };
  }

  /** The batch that the next flush will write; starts the drain loop if idle. */
  #batch(): Batch {
    if (!this.#pending) {
      this.#pending = newBatch();
      this.#kick();
    }
    return this.#pending;
  }

  #kick(): void {
    if (this.#draining) return;
    this.#draining = this.#drain().finally(() => {
      this.#draining = null;
      if (this.#pending) this.#kick();
    });
  }

  #compactionDue(): boolean {
    return this.#forceSnapshot || this.stats.journalledCommits >= this.#file!.compactAfter;
  }

  /** The flush lock: only this loop touches the files once the store is open. */
  async #drain(): Promise<void> {
    await null; // let commits issued in the same tick join the first batch
    let failed = false;
    for (;;) {
      const batch = this.#pending;
      if (!batch && (failed || !this.#compactionDue())) return;
      this.#pending = null;
      try {
        if (this.#compactionDue() || !this.#snapshotOnDisk) await this.#writeSnapshot();
        else await this.#append(batch!);
        failed = false;
        batch?.resolve();
      } catch (err) {
        failed = true;
        // memory is ahead of the files and the journal may end in a partial
        // line: never append again before a snapshot has been written
        this.#forceSnapshot = true;
        const error = new StoreError(`Cannot write database ${this.path}: ${errorMessage(err)}`, { cause: err });
        batch?.reject(error);
      }
    }
  }

  async #openJournal(): Promise<FileHandle> {
    this.#journal ??= await open(this.#file!.journalPath, 'a');
    return this.#journal;
  }

  async #append(batch: Batch): Promise<void> {
    if (batch.commits === 0) return;
    const file = this.#file!;
    const journal = await this.#openJournal();
    const buffer = Buffer.from(batch.lines.length === 1 ? batch.lines[0]! : batch.lines.join(''), 'utf8');
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await journal.write(buffer, offset, buffer.length - offset);
      offset += bytesWritten;
    }
    if (file.fsync) await journal.datasync();
    this.stats.flushes++;
    this.stats.journalBytes += buffer.length;
    this.stats.journalledCommits += batch.commits;
  }

  async #writeSnapshot(): Promise<void> {
    const file = this.#file!;
    // Capture the state synchronously, in the same tick in which drain took the
    // pending batch: the snapshot holds exactly the commits resolved by it. The
    // capture is copy-on-write (O(partitions)), and the text is produced slice by
    // slice, so commits and requests go on while 100k records are written.
    const seq = this.#seq;
    const gen = ++this.#snapshotGen;
    const captured = captureState(this.#state, gen);
    this.#writingGen = gen;
    try {
      await this.#openJournal(); // created on first write; its dir entry is synced with the rename
      // DurableJsonFile: write temp, fsync it, rename over the snapshot, fsync the directory,
      // so the new snapshot is durable before the journal shrinks
      await file.snapshotFile.writeChunks(capturedChunks(captured, seq));
    } finally {
      this.#writingGen = 0;
    }
    const journal = await this.#openJournal();
    await journal.truncate(0);
    if (file.fsync) await journal.datasync();
    this.#snapshotOnDisk = true;
    this.#snapshotSeq = seq;
    const written = await stat(file.path);
    this.#ownWrite = { ino: written.ino, size: written.size, mtimeMs: written.mtimeMs };
    this.#forceSnapshot = false;
    this.stats.snapshots++;
    this.stats.journalledCommits = 0;
  }

  isOwnWrite(info: { ino: number; size: number; mtimeMs: number }): boolean {
    const own = this.#ownWrite;
    return own !== null && own.ino === info.ino && own.size === info.size && own.mtimeMs === info.mtimeMs;
  }

  async readFileCollections(): Promise<Collections> {
    const file = this.#file;
    if (!file) throw new StoreError('An in-memory database has no file to read');
    const cannot = (problem: string) => new StoreError(`Cannot load ${file.path}: ${problem}`);
    let text: string;
    try {
      text = await readFile(file.path, 'utf8');
    } catch (err) {
      throw cannot(errorMessage(err));
    }
    const snapshot = parseSnapshotText(text, file.path);
    stateFromCollections(snapshot.collections, snapshot.seq, cannot); // validates every row
    return snapshot.collections;
  }

  /** Releases the journal without writing anything (failed open). */
  async abandon(): Promise<void> {
    this.#closing ??= Promise.resolve();
    await this.#draining?.catch(() => undefined);
    const journal = this.#journal;
    this.#journal = null;
    await journal?.close();
    this.#lock?.release();
  }

  /** Used at open when the journal holds nothing newer than the snapshot. */
  async truncateJournal(): Promise<void> {
    const journal = await this.#openJournal();
    await journal.truncate(0);
    if (this.#file!.fsync) await journal.datasync();
  }
}

