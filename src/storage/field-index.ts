import type { Collection } from './collection.ts';
import type { Store, StoreChange } from './types.ts';

interface Partition {
  /**
   * Most keys (codes, e-mails, slugs) belong to one row: that row's id is kept
   * as is, and a Set only once a second row shares the key. A Set per key cost
   * about 100 bytes per row at 100k bookings (docs/benchmarks.md, "Memory").
   */
  idsByKey: Map<string, string | Set<string>>;
  keyById: Map<string, string>;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * A secondary index over one collection, by a key derived from each row,
 * kept per workspace partition. It is built on the first lookup of a partition
 * (one scan) and then kept up to date from the store's change feed, which runs
 * synchronously inside commit(): a check and the commit that follows it in the
 * same tick can never race, and no write pays a scan of its collection
 * (uniqueness of form slugs, booking codes, e-mails, folder names; passengers
 * and items of a booking). A `replaced` change (reset, restore, import) drops
 * everything, to be rebuilt lazily.
 */
export class FieldIndex<T extends { readonly id: string }> {
  static readonly #shared = new WeakMap<Store, Map<string, FieldIndex<never>>>();

  /** The one index of `store` named `name` (services built twice share it), created on first use. */
  static of<T extends { readonly id: string }>(store: Store, collection: string, name: string, keyOf: (row: T) => string | null): FieldIndex<T> {
    let byName = FieldIndex.#shared.get(store);
    if (!byName) FieldIndex.#shared.set(store, (byName = new Map()));
    const id = `${collection}:${name}`;
    let index = byName.get(id) as FieldIndex<T> | undefined;
    if (!index) byName.set(id, (index = new FieldIndex<T>(store, collection, keyOf) as never));
    return index;
  }

  /** The index of a declared collection, its rows typed by the collection's schema. */
  static on<T extends { readonly id: string }>(store: Store, collection: Collection<T>, name: string, keyOf: (row: T) => string | null): FieldIndex<T> {
    return FieldIndex.of<T>(store, collection.name, name, keyOf);
  }

  readonly #partitions = new Map<string, Partition>();

  constructor(
    private readonly store: Store,
    private readonly collection: string,
    /** the row's key, or null to leave the row out of the index */
    private readonly keyOf: (row: T) => string | null,
  ) {
    store.onChange((change) => this.#apply(change));
  }

  /** ids of the partition's rows whose key is `key` */
  ids(workspaceId: string, key: string): ReadonlySet<string> {
    const ids = this.#partition(workspaceId).idsByKey.get(key);
    return ids === undefined ? NONE : typeof ids === 'string' ? new Set([ids]) : ids;
  }

  has(workspaceId: string, key: string): boolean {
    return this.#partition(workspaceId).idsByKey.has(key);
  }

  /** the rows whose key is `key`, in the order they were first indexed (the store's insertion order) */
  rows(workspaceId: string, key: string): T[] {
    const out: T[] = [];
    for (const id of this.ids(workspaceId, key)) {
      const row = this.store.get<T>(this.collection, workspaceId, id);
      if (row) out.push(row);
    }
    return out;
  }

  #partition(workspaceId: string): Partition {
    let partition = this.#partitions.get(workspaceId);
    if (!partition) {
      partition = { idsByKey: new Map(), keyById: new Map() };
      for (const row of this.store.list<T>(this.collection, workspaceId)) add(partition, row.id, this.keyOf(row));
      this.#partitions.set(workspaceId, partition);
    }
    return partition;
  }

  #apply(change: StoreChange): void {
    if (change.kind === 'replaced') {
      this.#partitions.clear();
      return;
    }
    for (const op of change.ops) {
      if (op.collection !== this.collection) continue;
      const partition = this.#partitions.get(op.workspaceId);
      if (!partition) continue; // not built yet: the first lookup scans the current rows
      if (op.type === 'delete') {
        remove(partition, op.id);
        continue;
      }
      const key = this.keyOf(op.row as unknown as T);
      if (partition.keyById.get(op.row.id) === key) continue; // unchanged: keeps its place, as the store's order does
      remove(partition, op.row.id);
      add(partition, op.row.id, key);
    }
  }
}

function add(partition: Partition, id: string, key: string | null): void {
  if (key === null) return;
  partition.keyById.set(id, key);
  const ids = partition.idsByKey.get(key);
  if (ids === undefined) partition.idsByKey.set(key, id);
  else if (typeof ids === 'string') partition.idsByKey.set(key, new Set([ids, id]));
  else ids.add(id);
}

function remove(partition: Partition, id: string): void {
  const key = partition.keyById.get(id);
  if (key === undefined) return;
  partition.keyById.delete(id);
  const ids = partition.idsByKey.get(key);
  if (typeof ids === 'string') {
    if (ids === id) partition.idsByKey.delete(key);
    return;
  }
  ids?.delete(id);
  if (ids?.size === 0) partition.idsByKey.delete(key);
}
