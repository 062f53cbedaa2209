/** What an ordered index keeps of a row: its id and the fields it sorts and filters on. */
export type Entry = { readonly id: string };

/** An entry's sort key: compared with `<`; null and undefined sort last whatever the direction. */
export type SortKey<E> = (entry: E) => string | number | null | undefined;

const isNone = (value: unknown): value is null | undefined => value === null || value === undefined;

/**
 * Entries in one list order, as `sortRows` (src/core/pagination.ts) orders
 * rows that were first sorted by id: by key, ties by id ascending in either
 * direction, entries without a key last (by id). Kept ascending in one array:
 * a descending walk takes the key groups from the last one back, each group
 * still by id, then the keyless entries, so one array serves both directions.
 *
 * A sorted array, not a tree: a seed appends at the end, a write moves one
 * entry (a memmove of at most 800 KB at 100k entries, ~0.1 ms), and a page
 * is found by position. sorted-btree would make the move O(log n); no
 * dependency was added for it.
 */
export class SortedEntries<E extends Entry> {
  #items: E[];
  /** entries with a key (they come first) */
  #keyed: number;

  constructor(
    private readonly key: SortKey<E>,
    items: E[] = [],
  ) {
    this.#items = items;
    let keyed = 0;
    while (keyed < items.length && !isNone(key(items[keyed]!))) keyed++;
    this.#keyed = keyed;
  }

  static from<E extends Entry>(key: SortKey<E>, entries: readonly E[]): SortedEntries<E> {
    const items = [...entries].sort((a, b) => compare(key, a, b));
    return new SortedEntries(key, items);
  }

  get size(): number {
    return this.#items.length;
  }

  insert(entry: E): void {
    const at = this.#position(entry);
    if (at === this.#items.length) this.#items.push(entry);
    else this.#items.splice(at, 0, entry);
    if (!isNone(this.key(entry))) this.#keyed++;
  }

  /** Removes the entry (the same key and id); false when it is not there. */
  remove(entry: E): boolean {
    const at = this.#position(entry);
    if (this.#items[at]?.id !== entry.id) return false;
    if (at === this.#items.length - 1) this.#items.pop();
    else this.#items.splice(at, 1);
    if (!isNone(this.key(entry))) this.#keyed--;
    return true;
  }

  /**
   * Visits entries in list order from position `from`, while `visit` returns
   * true. A descending start finds its key group by binary search: O(log n)
   * to reach any offset.
   */
  walk(descending: boolean, from: number, visit: (entry: E) => boolean): void {
    const items = this.#items;
    const keyed = this.#keyed;
    let p = from;
    if (descending) {
      while (p < keyed) {
        const i = keyed - 1 - p; // the ascending index of the entry at descending position p lies in the same key group
        const key = this.key(items[i]!) as string | number;
        const lo = this.#groupStart(key, i);
        const hi = this.#groupEnd(key, i);
        for (let j = lo + (p - (keyed - hi)); j < hi; j++, p++) if (!visit(items[j]!)) return;
      }
    }
    for (; p < items.length; p++) if (!visit(items[p]!)) return;
  }

  /** Every entry in ascending order (tests). */
  toArray(): E[] {
    return [...this.#items];
  }

  /** the first index whose entry does not sort before `entry` */
  #position(entry: E): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.key, this.#items[mid]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** first index of the keyed entries whose key is `key` (index `i` has it) */
  #groupStart(key: string | number, i: number): number {
    let lo = 0;
    let hi = i;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.key(this.#items[mid]!) as string | number) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** one past the last keyed entry whose key is `key` */
  #groupEnd(key: string | number, i: number): number {
    let lo = i + 1;
    let hi = this.#keyed;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.key(this.#items[mid]!) as string | number) === key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Ascending: keyed entries by key then id, then keyless ones by id. */
function compare<E extends Entry>(key: SortKey<E>, a: E, b: E): number {
  const x = key(a);
  const y = key(b);
  if (x !== y) {
    if (isNone(x)) return 1;
    if (isNone(y)) return -1;
    return x < y ? -1 : 1;
  }
  return a.id < b.id ? -1 : a.id === b.id ? 0 : 1;
}
