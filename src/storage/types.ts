/**
 * The storage contract. Nothing outside src/storage imports lowdb or touches the
 * database file; services go through a Store, reading and writing each
 * collection through its typed handle (collection.ts).
 *
 * Data is partitioned: collection -> workspaceId -> id -> row. Partitioning by
 * workspace makes cross-workspace reads structurally impossible for services.
 * Global records (workspaces themselves, API keys) live under GLOBAL_PARTITION.
 */
export const GLOBAL_PARTITION = '_global';

/** Bump when the on-disk shape changes; older files are migrated or refused. */
export const SCHEMA_VERSION = 1;

export type Row = { readonly id: string } & Record<string, unknown>;

export type Op = { type: 'put'; collection: string; workspaceId: string; row: Row } | { type: 'delete'; collection: string; workspaceId: string; id: string };

export type Collections = Record<string, Record<string, Record<string, Row>>>;

export interface CommitOptions {
  /**
   * The put rows are the caller's to give: built for this commit, and neither
   * changed nor handed to anyone else by the caller afterwards (nested values
   * included). The store then keeps a row that is already plain JSON data as it
   * is, instead of a JSON copy of it (given-rows.ts; a seed's rows). Default false.
   */
  rowsGiven?: boolean;
}

/**
 * A database whose collections are parsed when first read, not when given:
 * the prepared fixture database at start and reset (a start parses
 * the few collections its first request reads, not 2.8 MB). For trusted input
 * only: a row whose id does not match its key is refused when its collection
 * is loaded, not by replaceAll().
 */
export interface DeferredCollections {
  readonly kind: 'deferred';
  /** the collections it holds, in order (the order of an export) */
  readonly names: readonly string[];
  /** one collection's partitions, parsed now (a fresh copy at each call) */
  load(name: string): Record<string, Record<string, Row>>;
}

export type InitialCollections = Collections | DeferredCollections;

/** Where a collection's value is in a JSON text of collections: `text.slice(start, end)`. */
export type CollectionSpan = [name: string, start: number, end: number];

/** A JSON text of collections with each collection's span: parsed whole, or one collection at a time. */
export interface SpannedJson {
  text: string;
  spans: CollectionSpan[];
}

export const isDeferred = (collections: InitialCollections): collections is DeferredCollections =>
  (collections as Partial<DeferredCollections>).kind === 'deferred' && typeof (collections as Partial<DeferredCollections>).load === 'function';

/** The whole database as it is written to disk (snapshot file). */
export interface DbSnapshot {
  schemaVersion: number;
  /** sequence number of the last commit included in this snapshot */
  seq: number;
  collections: Collections;
}

export type StoreChange = { kind: 'ops'; ops: readonly Op[] } | { kind: 'replaced' };

export interface ReplaceOptions {
  /**
   * The collections are a hand edit of the database file, which holds the
   * writes up to this seq (its `seq` field): every write made since is applied
   * on top of them (watch mode). Refused with a StoreError when
   * those writes are no longer at hand, so an edit never rolls writes back.
   */
  writesAfter?: number;
}

/** The database file as it is on disk now, compared with what the sandbox wrote there (watch mode). */
export type FileEdit =
  /** the sandbox's own last write, or no file */
  | { kind: 'own' }
  /** touched, saved unchanged, or copied back: the content is what the sandbox wrote */
  | { kind: 'unchanged' }
  /** edited by hand: `hash` (sha256 of its bytes) identifies this content */
  | { kind: 'edited'; hash: string; snapshot: DbSnapshot }
  /** edited, and not a database this sandbox can load: `problem` is one line */
  | { kind: 'invalid'; hash: string; problem: string };

/** How Store.scan walks a partition. */
export interface ScanOptions {
  /** start at this position: a packed partition skips its pages before it without inflating them */
  from?: number;
  /**
   * walk a copy of the partition taken now (O(pages) when packed), which may be held across
   * commits and turns of the event loop (an index built in slices: field-index.ts, prepare)
   */
  detached?: boolean;
}

export interface Store {
  /** absolute path of the database file, or null for in-memory */
  readonly path: string | null;
  get<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, id: string): T | undefined;
  /** rows of one partition in insertion order; callers must not mutate them */
  list<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): readonly T[];
  /**
   * The rows of list() whose `field` is the string `value`, in list order. A created workspace's
   * view (overlay-store.ts) answers it without rewriting the rows that do not match, so a scan of
   * every workspace after a reset costs no copy of each one.
   */
  listWhere<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, field: string, value: string): readonly T[];
  /** rows in one partition (what list().length gives, without building the list) */
  count(collection: string, workspaceId: string): number;
  /**
   * The rows of one partition in insertion order, for one pass (building an index, a page of the
   * data inspector): a large packed partition is walked a page at a time instead of as one list
   * (large-files/packed-rows.ts). Not to be held across a commit, unless `detached`.
   */
  scan<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, options?: ScanOptions): Iterable<T>;
  /**
   * The rows of the partition whose JSON (JSON.stringify), lower-cased, holds `needle` (lower-case),
   * in order: the data inspector's `q`. Walks a copy taken now (as `detached`), with a null between
   * two packed pages, where a caller walking in slices may pause; a packed partition parses only
   * the pages whose text holds the needle.
   */
  scanMatching<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, needle: string): Iterable<T | null>;
  /** workspace ids that have rows in a collection */
  partitions(collection: string): string[];
  /** increases whenever the partition changes; used to cache derived responses */
  version(collection: string, workspaceId: string): number;
  /**
   * Applies ops to memory synchronously and atomically (all or nothing, before
   * this returns), then resolves once they are durable on disk. Concurrent
   * commits share one flush (group commit).
   */
  commit(ops: readonly Op[], options?: CommitOptions): Promise<void>;
  /** Replaces the whole state (reset, snapshot restore, a hand edit) and persists it. */
  replaceAll(collections: InitialCollections, options?: ReplaceOptions): Promise<void>;
  /** A deep copy of the whole state. */
  exportCollections(): Collections;
  /** The whole state as a JSON string of a DbSnapshot. */
  serialize(): string;
  /** The collections as JSON (what exportCollections gives), with each one's span: a snapshot restored deferred. */
  exportJson(): SpannedJson;
  onChange(listener: (change: StoreChange) => void): () => void;
  /** Resolves when everything committed so far is durable. */
  flush(): Promise<void>;
  /** Flushes, compacts the journal into the snapshot file, releases the file. */
  close(): Promise<void>;
  /**
   * Watch mode (docs/storage.md, "What a watched edit does"): from now on the
   * writes not yet in the snapshot file are kept at hand, so that a hand edit
   * can be loaded with them on top (`replaceAll(edit, {writesAfter})`), and
   * compactions do not overwrite an edit the watcher has not dealt with.
   */
  trackHandEdits(): Promise<void>;
  /**
   * Reads the database file as it is on disk now: a hand edit, or the
   * sandbox's own content (compared by sha256, not mtime or inode).
   */
  readFileEdit(): Promise<FileEdit>;
  /** The watcher dealt with the edit `hash` (loaded or refused it): not news again, and the next snapshot may replace it. */
  noteEditHandled(hash: string): void;
}

export interface OpenStoreOptions {
  /** database file; omit for in-memory */
  path?: string;
  /** compact the journal into the snapshot after this many journalled commits */
  compactAfterCommits?: number;
  /** fsync journal appends (default true) */
  fsync?: boolean;
  /** take the exclusive `<file>.lock` (default true; docs/storage.md, "Lock") */
  lock?: boolean;
  /**
   * a file that does not exist yet is not written until writeHeld() (or a commit, or a
   * flush): createSandbox holds it until it listens, so a failed start writes no database
   */
  holdNewFile?: boolean;
  /**
   * a journal that does not continue the snapshot (docs/storage.md, "A journal that does not
   * match") is renamed aside, under a name that says so, instead of refusing the open
   */
  recover?: boolean;
}

export interface OpenedStore {
  store: Store;
  /** true when no database existed and the caller should seed it */
  fresh: boolean;
  /** the stale lock (its process gone) that this open took over, or null; `pidReused`: its pid named another process by then */
  staleLock: { pid: number; host: string; startedAt: string; pidReused?: boolean } | null;
  /** one line each: what opening the file had to drop (a torn, never acknowledged journal line) */
  warnings: string[];
}

/**
 * The way out of a StoreError, as plain values: the setting that fixes it, and the advice given
 * how that setting is named. Storage does not word it: the sandbox names the createSandbox option
 * (src/assembly/storage.ts), the CLI its flag (src/cli/output.ts).
 */
export interface StoreAdvice {
  /** the setting, e.g. `storage` */
  option: string;
  text: (name: string) => string;
}

/**
 * Thrown when a database file cannot be used; message names the file. Its message is the
 * problem alone; the sandbox adds the advice in the library's words when it opens the store.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** the message before its advice (the sandbox, then the CLI, word the advice their own way) */
  readonly problem: string;
  readonly advice: StoreAdvice | undefined;
  constructor(problem: string, options: ErrorOptions & { advice?: StoreAdvice } = {}) {
    super(problem, options.cause === undefined ? undefined : { cause: options.cause });
    this.problem = problem;
    this.advice = options.advice;
  }
}

/**
 * Thrown (as a rejected promise) by commit()/replaceAll() when the input is not
 * valid: unknown op type, missing id, a row that is not a JSON object, ...
 * Nothing is applied when this is raised.
 */
export class InvalidOpError extends TypeError {
  override readonly name = 'InvalidOpError';
}

/** Counters kept by the engine (for tests, benchmarks and diagnostics). */
export interface StoreStats {
  /** commits applied since the store was opened */
  commits: number;
  /** journal appends (one per group commit) */
  flushes: number;
  /** bytes appended to the journal */
  journalBytes: number;
  /** full snapshots written (seed/replaceAll, compaction, close) */
  snapshots: number;
  /** commits in the journal that are not yet in the snapshot file */
  journalledCommits: number;
}

/** What openStore actually returns: a Store plus introspection. */
export interface InstrumentedStore extends Store {
  /** sequence number of the last commit (or replaceAll) applied in memory */
  readonly seq: number;
  readonly stats: Readonly<StoreStats>;
  /** one line each: what closing had to set aside (docs/storage.md, "What a watched edit does") */
  readonly notes: readonly string[];
  /** Writes the snapshot and truncates the journal now (file mode; no-op in memory). */
  compact(): Promise<void>;
  /** Writes what a new file held back (OpenStoreOptions.holdNewFile); resolves once durable. */
  writeHeld(): Promise<void>;
  /** Closes; a new file whose first write is still held is left unwritten, its lock and directory removed (true). */
  discardHeld(): Promise<boolean>;
  /** Releases the files and the lock without writing anything (a failed open; a test's killed sandbox). */
  abandon(): Promise<void>;
}

export interface OpenedInstrumentedStore extends OpenedStore {
  store: InstrumentedStore;
}
