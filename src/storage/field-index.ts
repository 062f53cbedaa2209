import type { Collection } from './collection.ts';
import { file, idsUnder, noFiledIds, unfile, type FiledIds } from './filed-ids.ts';
import { EAGER_BUILD_ROWS } from './ordered-index.ts';
import type { Op, Store, StoreChange } from './types.ts';

type PutOp = Extract<Op, { type: 'put' }>;

const NONE: ReadonlySet<string> = new Set();

/**
 * A row's key, or null (or undefined) to leave the row out of the index. It
 * runs on every row the store can hold, not only on rows the API validated (a
 * row put by a test, an imported state, a hand-edited or older database file),
 * so it must not throw on a missing field: use `textKey(row.field)`.
 */
export type KeyOf<T> = (row: T) => string | null | undefined;

/** A field's value when it is a string, else null: the guard for a key function (`textKey(p.email)?.toLowerCase()`). */
export const textKey = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * A secondary index over one collection, by a key derived from each row,
 * kept per workspace partition. It is built on the first lookup of a partition
 * (one scan) and then kept up to date from the store's change feed, which runs
 * synchronously inside commit(): a check and the commit that follows it in the
 * same tick can never race, and no write pays a scan of its collection
 * (uniqueness of form slugs, booking codes, e-mails, folder names; passengers
 * and items of a booking). A `replaced` change (reset, restore, import) drops
 * everything, to be rebuilt lazily.
 *
 * The store is the truth and the index only says where to look: a put files
 * the row's id under its key, and nothing is taken out on a delete or a key
 * change (the old key is not known without a second map from id to key, which
 * cost more than the rows' own ids). Every lookup checks each filed id
 * against the stored row (still there, same key), answers with those that
 * pass and drops the rest. So answers are exact; what a stale id costs is
 * bounded by #checkStale.
 */
export class FieldIndex<T extends { readonly id: string }> {
  static readonly #shared = new WeakMap<Store, Map<string, FieldIndex<never>>>();

  /** The one index of `store` named `name` (services built twice share it), created on first use. */
  static of<T extends { readonly id: string }>(store: Store, collection: string, name: string, keyOf: KeyOf<T>): FieldIndex<T> {
    let byName = FieldIndex.#shared.get(store);
    if (!byName) FieldIndex.#shared.set(store, (byName = new Map()));
    const id = `${collection}:${name}`;
    let index = byName.get(id) as FieldIndex<T> | undefined;
    if (!index) byName.set(id, (index = new FieldIndex<T>(store, collection, keyOf) as never));
    return index;
  }

  /** The index of a declared collection, its rows typed by the collection's schema. */
  static on<T extends { readonly id: string }>(store: Store, collection: Collection<T>, name: string, keyOf: KeyOf<T>): FieldIndex<T> {
    return FieldIndex.of<T>(store, collection.name, name, keyOf);
  }

  /**
   * Partitions kept per index, least recently looked up dropped first (to be rebuilt by
   * their next lookup, one scan). A thousand created workspaces that each read one booking
   * built 62 KiB of passenger and item index each, kept for good.
   */
  static readonly MAX_PARTITIONS = 128;

  /** by workspace id, least recently looked up first */
  readonly #partitions = new Map<string, FiledIds>();
  /** partitions being built in slices (prepare), with the puts to them since their copy was taken */
  readonly #building = new Map<string, { done: Promise<void>; puts: PutOp[]; abandoned: boolean }>();
  /** the last key of #partitions (a lookup there needs no reordering) */
  #newest: string | undefined;

  constructor(
    private readonly store: Store,
    private readonly collection: string,
    private readonly keyFn: KeyOf<T>,
    private readonly maxPartitions = FieldIndex.MAX_PARTITIONS,
  ) {
    store.onChange((change) => this.#apply(change));
  }

  /** The row's key; anything but a string (a row without the field: an import, an older file) files nothing. */
  #keyOf(row: T): string | null {
    const key = this.keyFn(row);
    return typeof key === 'string' ? key : null;
  }

  /** ids of the partition's rows whose key is `key` */
  ids(workspaceId: string, key: string): ReadonlySet<string> {
    const rows = this.rows(workspaceId, key);
    return rows.length === 0 ? NONE : new Set(rows.map((row) => row.id));
  }

  has(workspaceId: string, key: string): boolean {
    return this.rows(workspaceId, key).length > 0;
  }

  /**
   * the rows whose key is `key`, in the order they were first filed (the
   * store's insertion order; a row deleted and put again under the same key
   * keeps its first place)
   */
  rows(workspaceId: string, key: string): T[] {
    const partition = this.#partition(workspaceId);
    const out: T[] = [];
    let stale: string[] | null = null;
    for (const id of idsUnder(partition, key)) {
      const row = this.store.get<T>(this.collection, workspaceId, id);
      if (row !== undefined && this.#keyOf(row) === key) out.push(row);
      else (stale ??= []).push(id);
    }
    if (stale) for (const id of stale) unfile(partition, key, id);
    return out;
  }

  /**
   * Builds the partition's index, if it is not built, in slices of about SLICE_MS between other
   * work, from a copy of the partition (Store.scan, detached), then files the puts made since. A first
   * lookup builds it in one go: over 100k packed bookings that blocked every request for 1-3 s (the
   * inspector's related records). Small partitions are built at once.
   */
  prepare(workspaceId: string): Promise<void> {
    if (this.#partitions.has(workspaceId)) return Promise.resolve();
    const building = this.#building.get(workspaceId);
    if (building) return building.done;
    if (this.store.count(this.collection, workspaceId) <= EAGER_BUILD_ROWS) {
      this.#partition(workspaceId);
      return Promise.resolve();
    }
    const rows = this.store.scan<T>(this.collection, workspaceId, { detached: true });
    const state = { done: Promise.resolve(), puts: [] as PutOp[], abandoned: false };
    state.done = this.#buildInSlices(workspaceId, rows, state).finally(() => {
      if (this.#building.get(workspaceId) === state) this.#building.delete(workspaceId);
    });
    this.#building.set(workspaceId, state);
    return state.done;
  }

  /** time a slice of prepare() runs before it lets other work in */
  static SLICE_MS = 8;

  async #buildInSlices(workspaceId: string, rows: Iterable<T>, state: { puts: PutOp[]; abandoned: boolean }): Promise<void> {
    const partition = noFiledIds();
    let deadline = performance.now() + FieldIndex.SLICE_MS;
    for (const row of rows) {
      const key = this.#keyOf(row);
      if (key !== null) file(partition, key, row.id);
      if (performance.now() >= deadline) {
        await new Promise((resolve) => setImmediate(resolve));
        if (state.abandoned) return; // the store was replaced meanwhile: the next lookup builds it again
        deadline = performance.now() + FieldIndex.SLICE_MS;
      }
    }
    if (state.abandoned) return; // replaced, or a lookup meanwhile built it in one go
    // the puts since the copy, in commit order: a new row is filed after the rows before it, as the store orders them
    for (const op of state.puts) {
      const key = this.#keyOf(op.row as unknown as T);
      if (key !== null) file(partition, key, op.row.id);
    }
    partition.checkedAt = partition.filed;
    this.#register(workspaceId, partition);
  }

  /** Ids filed for the partition, stale ones included (0 before its first lookup): for tests of the bound. */
  filedIds(workspaceId: string): number {
    return this.#partitions.get(workspaceId)?.filed ?? 0;
  }

  /** Partitions kept now (tests of the bound). */
  get partitionCount(): number {
    return this.#partitions.size;
  }

  #partition(workspaceId: string): FiledIds {
    let partition = this.#partitions.get(workspaceId);
    if (partition) {
      if (this.#newest !== workspaceId) {
        this.#partitions.delete(workspaceId); // to the end: the most recently looked up
        this.#partitions.set(workspaceId, partition);
        this.#newest = workspaceId;
      }
      return partition;
    }
    partition = noFiledIds();
    for (const row of this.store.scan<T>(this.collection, workspaceId)) {
      const key = this.#keyOf(row);
      if (key !== null) file(partition, key, row.id);
    }
    partition.checkedAt = partition.filed;
    this.#register(workspaceId, partition);
    // a build in slices under way is superseded: the puts from now on reach this partition
    const building = this.#building.get(workspaceId);
    if (building) building.abandoned = true;
    return partition;
  }

  /** Keeps a built partition as the most recently looked up; past maxPartitions the least recent goes. */
  #register(workspaceId: string, partition: FiledIds): void {
    this.#partitions.set(workspaceId, partition);
    this.#newest = workspaceId;
    for (const oldest of this.#partitions.keys()) {
      if (this.#partitions.size <= this.maxPartitions) break;
      this.#partitions.delete(oldest);
    }
  }

  #apply(change: StoreChange): void {
    if (change.kind === 'replaced') {
      this.#partitions.clear();
      for (const building of this.#building.values()) building.abandoned = true;
      return;
    }
    for (const op of change.ops) {
      if (op.collection !== this.collection || op.type !== 'put') continue; // a deleted id fails its next check
      const partition = this.#partitions.get(op.workspaceId);
      if (!partition) {
        const building = this.#building.get(op.workspaceId);
        if (building) {
          building.puts.push(op);
          continue;
        }
        // Not built yet. While the partition is small, build it now (this change included) and keep it from
        // here on: a seed of 100k bookings then leaves it built, and the first read after the seed scans nothing
        // (it inflated every packed page, ~1.3 s at 100k bookings). A large one is left to its first lookup.
        if (this.store.count(this.collection, op.workspaceId) <= EAGER_BUILD_ROWS) this.#partition(op.workspaceId);
        continue;
      }
      const key = this.#keyOf(op.row as unknown as T);
      if (key !== null) file(partition, key, op.row.id); // already filed there: keeps its place, as the store's order does
      this.#checkStale(op.workspaceId, partition);
    }
  }

  /**
   * Ids of deleted rows and old keys stay filed until their key is looked up.
   * Each time the filed ids have doubled since the last check, they are
   * compared with the rows the partition holds; with more than half again as
   * many, the partition is dropped and rebuilt by its next lookup (one scan).
   * Amortised O(1) per put; the index never holds more than about three times
   * the ids of the rows it covers.
   */
  #checkStale(workspaceId: string, partition: FiledIds): void {
    if (partition.filed < Math.max(64, partition.checkedAt * 2)) return;
    const live = this.store.count(this.collection, workspaceId);
    if (partition.filed > live * 1.5) this.#partitions.delete(workspaceId);
    else partition.checkedAt = partition.filed;
  }
}
