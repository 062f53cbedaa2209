import { workspaceReplacedBy } from './change-feed.ts';
import type { Store, StoreChange } from './types.ts';
import { SortedEntries, type Entry, type SortKey } from './sorted-entries.ts';

/**
 * Paged lists that cost the page, not the collection (docs/storage.md,
 * "Indexes"). Per workspace partition it keeps one
 * small entry per row (the fields a list sorts and filters on, not the row)
 * in a sorted array per sort field, and per bucket (a booking's status) as
 * well, so `GET /v1/bookings?status=..&offset=N` finds its page by position
 * and its `total` by length. Only the page's rows are then read, by id: a
 * packed partition inflates the pages holding them, not every page.
 *
 * Kept up to date from the store's change feed, which runs synchronously
 * inside commit() (as FieldIndex, field-index.ts): a list that follows a write
 * sees it. A partition is built by one scan on its first page, or at its first
 * write while it is small (a seed then maintains it as it goes, so the first
 * list after a seed of 100k rows scans nothing). A `replaced` change drops
 * everything; a created workspace's overlay row changing drops that
 * workspace (its base rows appear or go without a change per row).
 */
export interface OrderedIndexSpec<T, E extends Entry> {
  /** the compact entry of a row (keep it small: one per row, kept for good) */
  entry(row: T): E;
  /** sort keys by name */
  orders: Record<string, SortKey<E>>;
  /** the bucket of an entry (a filter with its own sorted arrays), or undefined for none */
  bucket?: (entry: E) => string;
}

export interface PageQuery<E> {
  order: string;
  descending: boolean;
  /** only this bucket's entries */
  bucket?: string | undefined;
  /** only entries that pass (a walk over the entries in order, no row read) */
  filter?: ((entry: E) => boolean) | undefined;
  offset: number;
  limit: number;
}

interface Partition<E extends Entry> {
  byId: Map<string, E>;
  /** by order name: every entry, then by bucket */
  all: Map<string, SortedEntries<E>>;
  buckets: Map<string, Map<string, SortedEntries<E>>>;
}

/** Partitions smaller than this are built at their first write (a scan of a few unpacked rows). */
export const EAGER_BUILD_ROWS = 4096;

export class OrderedIndex<T extends { readonly id: string }, E extends Entry> {
  static readonly #shared = new WeakMap<Store, Map<string, OrderedIndex<never, never>>>();

  /** The one index of `store` named `name` over `collection` (services built twice share it). */
  static of<T extends { readonly id: string }, E extends Entry>(
    store: Store,
    collection: string,
    name: string,
    spec: OrderedIndexSpec<T, E>,
  ): OrderedIndex<T, E> {
    let byName = OrderedIndex.#shared.get(store);
    if (!byName) OrderedIndex.#shared.set(store, (byName = new Map()));
    const key = `${collection}:${name}`;
    let index = byName.get(key) as OrderedIndex<T, E> | undefined;
    if (!index) byName.set(key, (index = new OrderedIndex<T, E>(store, collection, spec) as never));
    return index;
  }

  /**
   * pageAmong walks the whole order, rather than sorting the picked entries, past one picked in this many
   * (a sort of m entries costs m log m compares of keys; a walk, one Set lookup an entry). Tests set 0 or 1e9.
   */
  static AMONG_WALK = 16;

  /** Partitions kept, least recently used dropped first (rebuilt by one scan when next listed), as FieldIndex. */
  static readonly MAX_PARTITIONS = 128;

  readonly #partitions = new Map<string, Partition<E>>();

  constructor(
    private readonly store: Store,
    private readonly collection: string,
    private readonly spec: OrderedIndexSpec<T, E>,
    private readonly maxPartitions = OrderedIndex.MAX_PARTITIONS,
  ) {
    store.onChange((change) => this.#apply(change));
  }

  /** One page of ids in list order, and how many entries the query matches in all. */
  page(workspaceId: string, query: PageQuery<E>): { ids: string[]; total: number } {
    const partition = this.#partition(workspaceId);
    const sorted = query.bucket === undefined ? partition.all.get(query.order) : partition.buckets.get(query.order)!.get(query.bucket);
    if (sorted === undefined) {
      if (!this.spec.orders[query.order]) throw new TypeError(`OrderedIndex: no order named ${query.order}`);
      return { ids: [], total: 0 };
    }
    const end = query.offset + query.limit;
    if (!query.filter) {
      const ids: string[] = [];
      sorted.walk(query.descending, query.offset, (entry) => ids.push(entry.id) < query.limit);
      return { ids, total: sorted.size };
    }
    const filter = query.filter;
    const ids: string[] = [];
    let total = 0;
    sorted.walk(query.descending, 0, (entry) => {
      if (filter(entry)) {
        if (total >= query.offset && total < end) ids.push(entry.id);
        total++;
      }
      return true;
    });
    return { ids, total };
  }

  /**
   * A page among the rows `ids` only (a search that matched a few rows: they are sorted, not
   * every entry walked). Ids without an entry are left out; `bucket` and `filter` still apply.
   */
  pageAmong(workspaceId: string, ids: Iterable<string>, query: PageQuery<E>): { ids: string[]; total: number } {
    const partition = this.#partition(workspaceId);
    const key = this.spec.orders[query.order];
    if (!key) throw new TypeError(`OrderedIndex: no order named ${query.order}`);
    const picked: E[] = [];
    for (const id of ids) {
      const entry = partition.byId.get(id);
      if (entry === undefined) continue;
      if (query.bucket !== undefined && this.spec.bucket?.(entry) !== query.bucket) continue;
      if (query.filter && !query.filter(entry)) continue;
      picked.push(entry);
    }
    const out: string[] = [];
    const all = query.bucket === undefined ? partition.all.get(query.order) : partition.buckets.get(query.order)!.get(query.bucket);
    if (all && picked.length * OrderedIndex.AMONG_WALK > all.size) {
      // many picked (a one-letter search): walking the order once beats sorting them (m log m compares of keys)
      const chosen = new Set(picked);
      let skip = query.offset;
      all.walk(query.descending, 0, (entry) => !chosen.has(entry) || skip-- > 0 || out.push(entry.id) < query.limit);
      return { ids: out, total: picked.length };
    }
    SortedEntries.from(key, picked).walk(query.descending, query.offset, (entry) => out.push(entry.id) < query.limit);
    return { ids: out, total: picked.length };
  }

  /** Entries of the partition (tests), building it if needed. */
  size(workspaceId: string): number {
    return this.#partition(workspaceId).byId.size;
  }

  /** Whether the partition is built now (tests). */
  isBuilt(workspaceId: string): boolean {
    return this.#partitions.has(workspaceId);
  }

  /** Drops a partition, to be rebuilt by its next page (a row went missing under it: never expected). */
  forget(workspaceId: string): void {
    this.#partitions.delete(workspaceId);
  }

  #partition(workspaceId: string): Partition<E> {
    const found = this.#partitions.get(workspaceId);
    if (found) {
      this.#partitions.delete(workspaceId); // most recently used last
      this.#partitions.set(workspaceId, found);
      return found;
    }
    return this.#build(workspaceId);
  }

  #build(workspaceId: string): Partition<E> {
    const partition: Partition<E> = { byId: new Map(), all: new Map(), buckets: new Map() };
    const entries: E[] = [];
    for (const row of this.store.scan<T>(this.collection, workspaceId)) {
      const entry = this.spec.entry(row);
      partition.byId.set(entry.id, entry);
      entries.push(entry);
    }
    for (const [name, key] of Object.entries(this.spec.orders)) {
      partition.all.set(name, SortedEntries.from(key, entries));
      const buckets = new Map<string, SortedEntries<E>>();
      partition.buckets.set(name, buckets);
      if (!this.spec.bucket) continue;
      const grouped = new Map<string, E[]>();
      for (const entry of entries) {
        const bucket = this.spec.bucket(entry);
        let group = grouped.get(bucket);
        if (!group) grouped.set(bucket, (group = []));
        group.push(entry);
      }
      for (const [bucket, group] of grouped) buckets.set(bucket, SortedEntries.from(key, group));
    }
    this.#partitions.set(workspaceId, partition);
    for (const oldest of this.#partitions.keys()) {
      if (this.#partitions.size <= this.maxPartitions) break;
      this.#partitions.delete(oldest);
    }
    return partition;
  }

  #apply(change: StoreChange): void {
    if (change.kind === 'replaced') {
      this.#partitions.clear();
      return;
    }
    let builtNow: Set<string> | null = null;
    for (const op of change.ops) {
      const replaced = workspaceReplacedBy(op);
      if (replaced !== undefined) {
        this.#partitions.delete(replaced);
        continue;
      }
      if (op.collection !== this.collection || builtNow?.has(op.workspaceId)) continue;
      const partition = this.#partitions.get(op.workspaceId);
      if (!partition) {
        // small: build it now from the rows as they stand (this change included), and keep it from here on
        if (this.store.count(this.collection, op.workspaceId) > EAGER_BUILD_ROWS) continue;
        this.#build(op.workspaceId);
        (builtNow ??= new Set()).add(op.workspaceId);
        continue;
      }
      const id = op.type === 'put' ? op.row.id : op.id;
      const before = partition.byId.get(id);
      if (before) this.#remove(partition, before);
      if (op.type === 'put') this.#add(partition, this.spec.entry(op.row as unknown as T));
    }
  }

  #add(partition: Partition<E>, entry: E): void {
    partition.byId.set(entry.id, entry);
    for (const [name, key] of Object.entries(this.spec.orders)) {
      partition.all.get(name)!.insert(entry);
      if (!this.spec.bucket) continue;
      const buckets = partition.buckets.get(name)!;
      const bucket = this.spec.bucket(entry);
      let sorted = buckets.get(bucket);
      if (!sorted) buckets.set(bucket, (sorted = new SortedEntries(key)));
      sorted.insert(entry);
    }
  }

  #remove(partition: Partition<E>, entry: E): void {
    partition.byId.delete(entry.id);
    for (const name of Object.keys(this.spec.orders)) {
      partition.all.get(name)!.remove(entry);
      if (this.spec.bucket) partition.buckets.get(name)!.get(this.spec.bucket(entry))?.remove(entry);
    }
  }
}
