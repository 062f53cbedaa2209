/**
 * The rows of a large partition, most of them compressed (100k
 * bookings under 300 MiB; docs/storage.md "Packed partitions").
 *
 * As plain objects a passenger costs ~220 bytes of heap and a booking ~700. Once a
 * partition holds more than `packAfter` rows, its older rows are kept as pages
 * (packed-pages.ts): ~65 bytes per passenger and ~210 per booking, plus ~12 bytes
 * in a PageIndex. The newest `hotRows` rows, and up to `hotRows` rows changed since
 * they were packed, stay objects. A read of a packed row inflates its page and parses
 * that row's line alone; the walks over many pages are packed-walks.ts.
 *
 * It behaves as the Map it replaces (codec.ts): `set` keeps an existing id's
 * place, a deleted and re-created id goes last, iteration is in that order.
 * Rows read twice may be different objects with the same content.
 */
import { packInBackground } from './background-packing.ts';
import { packableCollection } from '../collection.ts';
import { packLimits, type PackLimits, type PackMode, type RowMap } from './pack-policy.ts';
import { PackedPages } from './packed-pages.ts';
import { walkEntries, walkJsonMembers, walkMatching, walkValuesFrom, type Change, type WalkSource } from './packed-walks.ts';
import { idHash, PageIndex } from './page-index.ts';
import { RawPage, rawIdHash } from './raw-pages.ts';
import type { RawRows } from './snapshot-scan.ts';
import type { Row } from '../types.ts';

export class PackedRows implements RowMap {
  #pages: PackedPages;
  #index: PageIndex;
  /** rows not packed, in insertion order (all newer than every packed row) */
  #tail: Map<string, Row>;
  /** packed rows changed since: the row now (null when deleted) and the page that holds the old one */
  #changed: Map<string, Change>;
  /** live packed rows */
  #packed: number;
  readonly #limits: PackLimits;
  /** walks in progress (background packing waits for them: packSlice's 'busy') */
  #walks = 0;
  /** what the walks read (packed-walks.ts) */
  readonly #source: WalkSource;

  private constructor(tail: Map<string, Row>, limits: PackLimits, from?: PackedRows) {
    this.#tail = tail;
    this.#limits = limits;
    this.#pages = new PackedPages(from ? from.#pages : undefined);
    this.#index = from ? from.#index.copy() : new PageIndex(tail.size);
    this.#changed = from ? new Map(from.#changed) : new Map();
    this.#packed = from ? from.#packed : 0;
    this.#source = { pages: this.#pages, changed: this.#changed, tail: this.#tail };
  }

  /**
   * Takes over a Map's rows (the Map becomes this one's own). Each later insert
   * packs one page, so crossing the threshold never pauses. `now` packs all but
   * the newest `hotRows` at once (tests); `background` packs them a few
   * milliseconds at a time between other work (a loaded file: packing 100k
   * bookings' rows takes seconds, which a start should not wait for).
   */
  static adopt(rows: Map<string, Row>, mode: PackMode, useLimits = packLimits()): PackedRows {
    const packed = new PackedRows(rows, useLimits);
    if (mode === 'now') while (packed.#tail.size > useLimits.hotRows) packed.#packOne();
    else if (mode === 'background') packed.#packLater();
    return packed;
  }

  /**
   * Rows left in the file's bytes (snapshot-scan.ts), none of them parsed but the newest
   * `hotRows`, which become the tail as adopt() would keep them: the others are cut into the
   * pages adopt() would make, each page's ids hashed from their bytes into the PageIndex. The
   * pages stay spans of the file until the background deflates them (raw-pages.ts).
   */
  static fromRaw(raw: RawRows, useLimits = packLimits()): PackedRows {
    const total = raw.size;
    const cold = Math.max(0, total - useLimits.hotRows);
    const tail = new Map<string, Row>();
    for (let i = cold; i < total; i++) {
      const row = JSON.parse(raw.source.toString('utf8', raw.rowStarts[i]!, raw.rowEnds[i]!)) as Row;
      tail.set(row.id, row);
    }
    const packed = new PackedRows(tail, useLimits);
    const index = (packed.#index = new PageIndex(total));
    const { rowStarts, rowEnds } = raw;
    for (let i = 0; i < cold; ) {
      const from = i;
      const page = packed.#pages.count;
      // pages cut as #packOne cuts them: rows are added until the page holds pageBytes
      for (let bytes = 0; i < cold && bytes < useLimits.pageBytes; i++) {
        bytes += rowEnds[i]! - rowStarts[i]! + 1;
        index.add(rawIdHash(raw, i), page);
      }
      packed.#pages.appendRaw(new RawPage(raw, from, i));
    }
    packed.#packed = cold;
    packed.#pages.deflateRawLater();
    packed.#packLater();
    return packed;
  }

  /** pages still spans of the file's bytes (diagnostics, tests) */
  get rawPages(): number {
    return this.#pages.rawPages;
  }

  /** An independent copy (copy-on-write while a snapshot is written): O(pages), not O(rows). */
  copy(): PackedRows {
    const copy = new PackedRows(new Map(this.#tail), this.#limits, this);
    copy.#packLater();
    return copy;
  }

  get size(): number {
    return this.#packed + this.#tail.size;
  }

  /** pages held (diagnostics, tests) */
  get pageCount(): number {
    return this.#pages.count;
  }

  get(id: string): Row | undefined {
    const row = this.#tail.get(id);
    if (row !== undefined) return row;
    const changed = this.#changed.get(id);
    if (changed !== undefined) return changed.row ?? undefined;
    // the row the page lookup confirmed with (reading it a second time parsed its line twice: ~10% of a list page)
    let found: Row | undefined;
    this.#index.find(idHash(id), (page) => (found = this.#pages.rowIn(page, id)) !== undefined);
    return found;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, row: Row): this {
    if (this.#tail.has(id)) {
      this.#tail.set(id, row);
      return this;
    }
    const changed = this.#changed.get(id);
    if (changed?.row === null) {
      // deleted while packed, now created again: like a Map, it goes last
      this.#changed.delete(id);
      this.#rewrite(changed.page, new Map([[id, null]]));
      this.#insert(id, row);
      return this;
    }
    const page = changed?.page ?? this.#pageOf(id);
    if (page >= 0) this.#change(id, row, page);
    else this.#insert(id, row);
    return this;
  }

  delete(id: string): boolean {
    if (this.#tail.delete(id)) return true;
    const changed = this.#changed.get(id);
    if (changed?.row === null) return false;
    const page = changed?.page ?? this.#pageOf(id);
    if (page < 0) return false;
    this.#packed--;
    this.#pages.live[page]!--;
    this.#change(id, null, page);
    return true;
  }

  entries(): IterableIterator<[string, Row]> {
    return this.#counted(walkEntries(this.#source));
  }

  *values(): IterableIterator<Row> {
    for (const [, row] of this.entries()) yield row;
  }

  /** The rows from position `offset` on, skipping whole pages before it (packed-walks.ts). */
  valuesFrom(offset: number): IterableIterator<Row> {
    return this.#counted(walkValuesFrom(this.#source, offset));
  }

  /** The rows whose lower-cased JSON holds `needle`; with `pauses`, a null after each page (packed-walks.ts). */
  matching(needle: string, pauses = false): IterableIterator<Row | null> {
    return this.#counted(walkMatching(this.#source, needle, pauses));
  }

  /** The snapshot file's members for these rows, copied from the pages' text (packed-walks.ts). */
  jsonMembers(): IterableIterator<string> {
    return this.#counted(walkJsonMembers(this.#source));
  }

  [Symbol.iterator](): IterableIterator<[string, Row]> {
    return this.entries();
  }

  // ---------------------------------------------------------------- internals

  /** A walk, counted while it is in progress (from its first step to its end or return). */
  *#counted<T>(walk: IterableIterator<T>): IterableIterator<T> {
    this.#walks++;
    try {
      yield* walk;
    } finally {
      this.#walks--;
    }
  }

  /** Packs the tail down to the hot rows, and deflates the pages left in the file's bytes, in the background (see adopt, fromRaw). */
  #packLater(): void {
    const raw = this.#pages.holdsRawPages();
    if (this.#tail.size <= this.#limits.hotRows && !raw) return;
    packInBackground(this, raw);
  }

  /**
   * One slice of background packing for this partition, until `deadline`: the pages left in the
   * file's bytes first (in place: a walk in progress reads the same rows either way), then the
   * tail ('busy' while a walk is in progress).
   */
  packSlice(deadline: number): 'done' | 'more' | 'busy' {
    const deflating = this.#pages.deflateRaw() === 'deflating';
    if (this.#tail.size <= this.#limits.hotRows) return deflating ? 'busy' : 'done';
    // packing moves the oldest tail rows into a new page: a walk suspended in the tail would miss them
    if (this.#walks > 0) return 'busy';
    while (this.#tail.size > this.#limits.hotRows && performance.now() < deadline) this.#packOne();
    return this.#tail.size > this.#limits.hotRows ? 'more' : deflating ? 'busy' : 'done';
  }

  #insert(id: string, row: Row): void {
    this.#tail.set(id, row);
    if (this.#tail.size > this.#limits.hotRows) this.#packOne();
  }

  #change(id: string, row: Row | null, page: number): void {
    this.#changed.set(id, { row, page });
    if (this.#changed.size > this.#limits.hotRows) this.#foldOne();
  }

  /** The page holding a packed id (changed or not), or -1. */
  #pageOf(id: string): number {
    return this.#index.find(idHash(id), (page) => this.#pages.rowIn(page, id) !== undefined);
  }

  /** Packs the oldest tail rows into a new page of about `pageBytes` of JSON. */
  #packOne(): void {
    const parts: string[] = [];
    const hashes: number[] = [];
    let bytes = 0;
    for (const [id, row] of this.#tail) {
      // a whole page each time (below the hot rows if need be): one row per insert would make one-row pages
      if (bytes >= this.#limits.pageBytes || parts.length === this.#tail.size) break;
      const json = JSON.stringify(row);
      parts.push(json);
      hashes.push(idHash(id));
      bytes += json.length + 1;
    }
    if (parts.length === 0) return;
    let n = 0;
    for (const id of this.#tail.keys()) {
      if (n++ === parts.length) break;
      this.#tail.delete(id);
    }
    const page = this.#pages.append(parts);
    for (const hash of hashes) this.#index.add(hash, page);
    this.#packed += parts.length;
  }

  /**
   * Writes the changes of one page (the one of the oldest change) back into it,
   * so `#changed` stays near `hotRows`: one page per change beyond it (~0.2 ms),
   * never a burst (folding all 1,024 at once rewrote up to as many pages, ~400 ms).
   */
  #foldOne(): void {
    const page = this.#changed.values().next().value!.page;
    const changes = new Map<string, Row | null>();
    for (const [id, change] of this.#changed) if (change.page === page) changes.set(id, change.row);
    for (const id of changes.keys()) this.#changed.delete(id);
    this.#rewrite(page, changes);
  }

  /** Replaces one page with `changes` applied (a null drops the row); its place in the order is kept. */
  #rewrite(page: number, changes: Map<string, Row | null>): void {
    const rows: Row[] = [];
    for (const row of this.#pages.parse(page)) {
      const id = row.id;
      const change = changes.get(id);
      if (change === undefined) rows.push(row);
      else if (change === null) this.#index.remove(idHash(id), page);
      else rows.push(change);
    }
    this.#pages.replace(page, rows);
  }
}

/** A copy of a partition's rows that changes to the original do not reach. */
export function copyRows(rows: RowMap): RowMap {
  return rows instanceof PackedRows ? rows.copy() : new Map(rows as Map<string, Row>);
}

/** The rows a partition should hold after growing: packed once it is large, if its collection allows. */
export function packIfLarge(collection: string, rows: RowMap, mode: PackMode): RowMap {
  return rows instanceof Map && rows.size > packLimits().packAfter && packableCollection(collection) ? PackedRows.adopt(rows as Map<string, Row>, mode) : rows;
}
