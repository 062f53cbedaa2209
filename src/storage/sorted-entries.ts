/** What an ordered index keeps of a row: its id and the fields it sorts and filters on. */
export type Entry = { readonly id: string };

/** An entry's sort key: compared with `<`; null and undefined sort last whatever the direction. */
export type SortKey<E> = (entry: E) => string | number | null | undefined;

const isNone = (value: unknown): value is null | undefined => value === null || value === undefined;

/**
 * Entries in one list order, as `sortRows` (src/core/pagination.ts) orders
 * rows that were first sorted by id: by key, ties by id ascending in either
 * direction, entries without a key last (by id). Kept ascending: a descending
 * walk takes the key groups from the last one back, each group still by id,
 * then the keyless entries, so one order serves both directions.
 *
 * Sorted blocks of at most 2 x BLOCK entries, not one array: entries come in
 * no key order (updatedAt, a second seed run beside the first; a seed wrote
 * bookings in no date order at all), and inserting 100k of them at random places in
 * one array moved 400 KB per insert (17 s for 100k, under load). A block is
 * found by binary search over the blocks' last entries, a position by summing
 * block lengths (~200 blocks at 100k). sorted-btree would do the same job; no
 * dependency was added for it.
 */
export class SortedEntries<E extends Entry> {
  /** entries per block, split past twice that (tests make it tiny, to split and empty blocks often) */
  static BLOCK = 512;
  #blocks: E[][] = [];
  #size = 0;
  /** entries with a key (they come first) */
  #keyed = 0;

  constructor(private readonly key: SortKey<E>) {}

  static from<E extends Entry>(key: SortKey<E>, entries: readonly E[]): SortedEntries<E> {
    const out = new SortedEntries(key);
    const items = [...entries].sort((a, b) => compare(key, a, b));
    for (let i = 0; i < items.length; i += SortedEntries.BLOCK) out.#blocks.push(items.slice(i, i + SortedEntries.BLOCK));
    out.#size = items.length;
    for (const item of items) if (!isNone(key(item))) out.#keyed++;
    return out;
  }

  get size(): number {
    return this.#size;
  }

  insert(entry: E): void {
    this.#size++;
    if (!isNone(this.key(entry))) this.#keyed++;
    if (this.#blocks.length === 0) {
      this.#blocks.push([entry]);
      return;
    }
    const b = Math.min(this.#blockOf(entry), this.#blocks.length - 1);
    const block = this.#blocks[b]!;
    const at = this.#positionIn(block, entry);
    if (at === block.length) block.push(entry);
    else block.splice(at, 0, entry);
    if (block.length > 2 * SortedEntries.BLOCK) this.#blocks.splice(b + 1, 0, block.splice(SortedEntries.BLOCK));
  }

  /** Removes the entry (the same key and id); false when it is not there. */
  remove(entry: E): boolean {
    const b = this.#blockOf(entry);
    const block = this.#blocks[b];
    if (!block) return false;
    const at = this.#positionIn(block, entry);
    if (block[at]?.id !== entry.id) return false;
    block.splice(at, 1);
    if (block.length === 0) this.#blocks.splice(b, 1);
    this.#size--;
    if (!isNone(this.key(entry))) this.#keyed--;
    return true;
  }

  /**
   * Visits entries in list order from position `from`, while `visit` returns
   * true. O(blocks) to reach any offset, then O(1) per entry (a descending
   * walk reads each key group once, to give it in id order).
   */
  walk(descending: boolean, from: number, visit: (entry: E) => boolean): void {
    let p = from;
    if (descending && p < this.#keyed) {
      // asc index i holds the entry at descending position p; its group runs from lo to hi (exclusive)
      const i = this.#keyed - 1 - p;
      const down = this.#cursor(i);
      const key = this.key(down.peek()!);
      const after: E[] = [];
      for (const up = this.#cursor(i + 1); after.length < this.#keyed - 1 - i && up.peek() !== undefined && this.key(up.peek()!) === key; up.next())
        after.push(up.peek()!);
      // the group in ascending order is [lo..i] then `after`; position p is its entry at index after.length
      const group = this.#groupDown(down, key).concat(after);
      const start = after.length;
      for (let j = start; j < group.length; j++, p++) if (!visit(group[j]!)) return;
      while (p < this.#keyed) {
        const next = this.#groupDown(down, this.key(down.peek()!));
        for (const entry of next) {
          if (!visit(entry)) return;
          p++;
        }
      }
    }
    for (const c = this.#cursor(p); p < this.#size; p++, c.next()) if (!visit(c.peek()!)) return;
  }

  /** Every entry in ascending order (tests). */
  toArray(): E[] {
    return this.#blocks.flat();
  }

  /** The entries of the cursor's key group from the cursor down, in ascending order; the cursor ends below it. */
  #groupDown(cursor: Cursor<E>, key: unknown): E[] {
    const group: E[] = [];
    while (cursor.peek() !== undefined && cursor.index >= 0 && this.key(cursor.peek()!) === key) {
      group.push(cursor.peek()!);
      cursor.prev();
    }
    return group.reverse();
  }

  /** A cursor at ascending index `i`. */
  #cursor(i: number): Cursor<E> {
    const blocks = this.#blocks;
    let b = 0;
    let o = i;
    while (b < blocks.length && o >= blocks[b]!.length) o -= blocks[b++]!.length;
    const cursor: Cursor<E> = {
      index: i,
      peek: () => (i < 0 ? undefined : blocks[b]?.[o]),
      next: () => {
        cursor.index = ++i;
        if (++o >= (blocks[b]?.length ?? 0)) {
          b++;
          o = 0;
        }
      },
      prev: () => {
        cursor.index = --i;
        if (--o < 0) {
          b--;
          o = (blocks[b]?.length ?? 0) - 1;
        }
      },
    };
    return cursor;
  }

  /** the first block whose last entry does not sort before `entry` (blocks.length when none) */
  #blockOf(entry: E): number {
    let lo = 0;
    let hi = this.#blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = this.#blocks[mid]!;
      if (compare(this.key, block[block.length - 1]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** the first index of `block` whose entry does not sort before `entry` */
  #positionIn(block: E[], entry: E): number {
    let lo = 0;
    let hi = block.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(this.key, block[mid]!, entry) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

interface Cursor<E> {
  index: number;
  peek(): E | undefined;
  next(): void;
  prev(): void;
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
