/**
 * The rows of a large partition, most of them compressed (issue 11: 100k
 * bookings under 300 MiB; docs/storage.md "Packed partitions").
 *
 * As plain objects a passenger costs ~220 bytes of heap (the object, its id and
 * timestamp strings, its Map entry) and a booking ~700. Once a partition holds
 * more than `packAfter` rows, its older rows are kept as pages: about 8 KB of
 * their JSON, deflated with the partition's first page as the dictionary, ~65
 * bytes per passenger and ~210 per booking, plus ~12 bytes in a PageIndex.
 * The newest `hotRows` rows, and up to `hotRows` rows changed since they were
 * packed, stay objects. A read of a packed row inflates its page and parses that row's line
 * alone (issue 27: a page of 100 bookings read 100 pages while the seed wrote them in no date
 * order, ~15 now, and parsing each whole page cost ~100 us a row); the last pages read stay inflated.
 *
 * It behaves as the Map it replaces (codec.ts): `set` keeps an existing id's
 * place, a deleted and re-created id goes last, iteration is in that order.
 * Rows read twice may be different objects with the same content.
 */
import { rowHolds } from './row-text.ts';
import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { packInBackground } from './background-packing.ts';
import { packLimits, packableCollection, type PackLimits, type PackMode, type RowMap } from './pack-policy.ts';
import { keep } from './page-arena.ts';
import { idHash, PageIndex } from './page-index.ts';
import type { RawRows } from './snapshot-scan.ts';
import type { Row } from './types.ts';

/** an inflated page of no rows */
const EMPTY = Buffer.alloc(0);
/** inflated page texts kept (~8 KB each) */
const CACHED_PAGES = 32;
/** zlib's window: a longer dictionary is not used */
const DICTIONARY_BYTES = 32 * 1024;

/** A packed row changed since it was packed. Never mutated: copies share these. */
interface Change {
  readonly row: Row | null;
  readonly page: number;
}

/**
 * A page whose rows are still spans of the file's bytes (a file opened with its rows unparsed,
 * snapshot-scan.ts): `rows.source[rowStarts[i], rowEnds[i])` for i in [from, to). Its text is
 * built from them when read, and it is deflated in the background; then `deflated` is set and
 * `rows` let go (the file's bytes are freed once no page needs them). Shared by copies: the
 * first to deflate it does so for all.
 */
class RawPage {
  deflated: Buffer | null = null;
  constructor(
    public rows: RawRows | null,
    readonly from: number,
    readonly to: number,
  ) {}
}

/** A partition's pages: the array is its own (copy() copies it); the buffers and the dictionary are shared, never changed. */
interface Pages {
  /** deflated pages; a RawPage until the background deflates it; null once every row is gone */
  buffers: (Buffer | RawPage | null)[];
  dictionary: Buffer | null;
  /** live rows of each page (its rows less those deleted since): valuesFrom() skips whole pages by it */
  live: number[];
}

export class PackedRows implements RowMap {
  #pages: Pages;
  #index: PageIndex;
  /** rows not packed, in insertion order (all newer than every packed row) */
  #tail: Map<string, Row>;
  /** packed rows changed since: the row now (null when deleted) and the page that holds the old one */
  #changed: Map<string, Change>;
  /** live packed rows */
  #packed: number;
  readonly #limits: PackLimits;
  /**
   * inflated pages, least recently used first: one row per line (see #encodeRows). Kept as the
   * inflated bytes: a row read finds its line in them and decodes that line alone (decoding the
   * whole 8 KB page to a string was ~11% of a list page of 100 rows read from 100 pages)
   */
  #texts = new Map<number, Buffer>();
  /** walks of entries() in progress */
  #walks = 0;
  /** pages before this one are deflated: a RawPage is only at or after it */
  #rawNext = 0;

  private constructor(tail: Map<string, Row>, limits: PackLimits, from?: PackedRows) {
    this.#tail = tail;
    this.#limits = limits;
    if (from) {
      this.#pages = { buffers: from.#pages.buffers.slice(), dictionary: from.#pages.dictionary, live: from.#pages.live.slice() };
      this.#index = from.#index.copy();
      this.#changed = new Map(from.#changed);
      this.#packed = from.#packed;
      this.#rawNext = from.#rawNext;
    } else {
      this.#pages = { buffers: [], dictionary: null, live: [] };
      this.#index = new PageIndex(tail.size);
      this.#changed = new Map();
      this.#packed = 0;
    }
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
   * pages stay spans of the file until the background deflates them, a few ms at a time.
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
    packed.#index = new PageIndex(total);
    const { buffers, live } = packed.#pages;
    const { rowStarts, rowEnds } = raw;
    const index = packed.#index;
    for (let i = 0; i < cold; ) {
      const from = i;
      const page = buffers.length;
      // pages cut as #packOne cuts them: rows are added until the page holds pageBytes
      for (let bytes = 0; i < cold && bytes < useLimits.pageBytes; i++) {
        bytes += rowEnds[i]! - rowStarts[i]! + 1;
        index.add(rawIdHash(raw, i), page);
      }
      buffers.push(new RawPage(raw, from, i));
      live.push(i - from);
    }
    packed.#packed = cold;
    const first = buffers[0];
    if (first) {
      const text = rawText(first as RawPage);
      const dictionary = (packed.#pages.dictionary = Buffer.from(text.subarray(Math.max(0, text.length - DICTIONARY_BYTES))));
      for (const page of buffers) deflateLater(page as RawPage, dictionary);
    }
    packed.#packLater();
    return packed;
  }

  /** pages still spans of the file's bytes (diagnostics, tests) */
  get rawPages(): number {
    let raw = 0;
    for (let page = this.#rawNext; page < this.#pages.buffers.length; page++) {
      const entry = this.#pages.buffers[page];
      if (entry instanceof RawPage && entry.deflated === null) raw++;
    }
    return raw;
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
    return this.#pages.buffers.length;
  }

  get(id: string): Row | undefined {
    const row = this.#tail.get(id);
    if (row !== undefined) return row;
    const changed = this.#changed.get(id);
    if (changed !== undefined) return changed.row ?? undefined;
    // the row the page lookup confirmed with (reading it a second time parsed its line twice: ~10% of a list page)
    let found: Row | undefined;
    this.#index.find(idHash(id), (page) => (found = this.#rowIn(page, id)) !== undefined);
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

  *entries(): IterableIterator<[string, Row]> {
    this.#walks++;
    try {
      yield* this.#walk();
    } finally {
      this.#walks--;
    }
  }

  *#walk(): IterableIterator<[string, Row]> {
    const buffers = this.#pages.buffers;
    for (let page = 0; page < buffers.length; page++) {
      if (buffers[page] === null) continue;
      // a walk over every page parses each one without caching it
      for (const packed of this.#parse(page)) {
        const changed = this.#changed.get(packed.id);
        if (changed === undefined) yield [packed.id, packed];
        else if (changed.row !== null) yield [packed.id, changed.row];
      }
    }
    yield* this.#tail;
  }

  *values(): IterableIterator<Row> {
    for (const [, row] of this.entries()) yield row;
  }

  /**
   * The rows from position `offset` on (in the order of values()), for a page at a deep offset
   * (the inspector's data route, src/control/data.ts): whole pages before it are skipped by their
   * live counts, neither inflated nor parsed, so a page at 99,900 of 100k costs a page or two.
   */
  *valuesFrom(offset: number): IterableIterator<Row> {
    this.#walks++;
    try {
      const { buffers, live } = this.#pages;
      let skip = Math.max(0, offset);
      let page = 0;
      for (; page < buffers.length && skip >= live[page]!; page++) skip -= live[page]!;
      for (; page < buffers.length; page++) {
        if (buffers[page] === null) continue;
        for (const packed of this.#parse(page)) {
          const changed = this.#changed.get(packed.id);
          const row = changed === undefined ? packed : changed.row;
          if (row === null) continue;
          if (skip > 0) skip--;
          else yield row;
        }
      }
      for (const row of this.#tail.values()) {
        if (skip > 0) skip--;
        else yield row;
      }
    } finally {
      this.#walks--;
    }
  }

  /**
   * The rows of values() whose JSON, lower-cased, holds `needle` (lower-case), in order: a text
   * search (the inspector's `q`) that parses only the pages whose text holds the needle. A page
   * with changes since it was packed is tested row by row. With `pauses`, a null after each page:
   * where a walk in slices may stop for a while (only on a copy: see Store.scanMatching).
   */
  *matching(needle: string, pauses = false): IterableIterator<Row | null> {
    this.#walks++;
    try {
      const changedPages = new Set<number>();
      for (const change of this.#changed.values()) changedPages.add(change.page);
      const buffers = this.#pages.buffers;
      for (let page = 0; page < buffers.length; page++) {
        if (pauses && page > 0) yield null;
        if (buffers[page] === null) continue;
        const text = (this.#texts.get(page) ?? this.#inflate(page)).toString('utf8');
        if (text === '') continue;
        if (changedPages.has(page)) {
          for (const packed of JSON.parse(text) as Row[]) {
            const changed = this.#changed.get(packed.id);
            const row = changed === undefined ? packed : changed.row;
            if (row !== null && rowHolds(row, needle)) yield row;
          }
          continue;
        }
        const lower = text.toLowerCase();
        if (!lower.includes(needle)) continue;
        // one row per line (`[row,\nrow,\n...row]`, see #rowIn): only the lines that hold the needle are parsed
        const lines = text.split('\n');
        const lowered = lower.split('\n'); // lower-casing never makes or takes a newline: the same lines
        for (let i = 0; i < lines.length; i++) {
          const start = i === 0 ? 1 : 0; // after the page's '[', before the line's ',' or the final ']'
          if (lowered[i]!.slice(start, -1).includes(needle)) yield JSON.parse(lines[i]!.slice(start, -1)) as Row;
        }
      }
      for (const row of this.#tail.values()) if (rowHolds(row, needle)) yield row;
    } finally {
      this.#walks--;
    }
  }

  /**
   * The snapshot file's members for these rows, `"id":row` joined with commas, a page at a
   * time, in the order of entries(): a row unchanged since it was packed is copied from its
   * page's text as it is, neither parsed nor serialised again (issue 35: a stop right after a
   * large seed compacts every row; parsing and re-serialising 100k bookings' rows took longer
   * than the stop's deadline). Its text is what JSON.stringify wrote for it when it was packed.
   */
  *jsonMembers(): IterableIterator<string> {
    this.#walks++;
    try {
      const buffers = this.#pages.buffers;
      for (let page = 0; page < buffers.length; page++) {
        if (buffers[page] === null) continue;
        const bytes = this.#texts.get(page) ?? this.#inflate(page);
        if (bytes.length === 0) continue;
        const members: string[] = [];
        const lines = bytes.toString('utf8').split('\n');
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i]!.slice(i === 0 ? 1 : 0, -1); // without the page's '[', the ',' or the final ']'
          const member = this.#memberOf(line);
          if (member !== null) members.push(member);
        }
        if (members.length > 0) yield members.join(',');
      }
      const members: string[] = [];
      for (const [id, row] of this.#tail) members.push(`${JSON.stringify(id)}:${JSON.stringify(row)}`);
      if (members.length > 0) yield members.join(',');
    } finally {
      this.#walks--;
    }
  }

  /** One packed line as a snapshot member, its change applied (null: deleted since). */
  #memberOf(line: string): string | null {
    let key: string | null = null;
    // `{"id":"...",` as JSON.stringify writes a row whose id comes first: the key is that string
    if (line.startsWith('{"id":"')) {
      const close = line.indexOf('"', 7);
      const escape = line.indexOf('\\', 7);
      if (close > 0 && (escape < 0 || escape > close)) key = line.slice(6, close + 1);
    }
    if (key === null || (this.#changed.size > 0 && this.#changed.has(key.slice(1, -1)))) {
      const packed = JSON.parse(line) as Row;
      const change = this.#changed.get(packed.id);
      const row = change === undefined ? packed : change.row;
      return row === null ? null : `${JSON.stringify(packed.id)}:${change === undefined ? line : JSON.stringify(row)}`;
    }
    return `${key}:${line}`;
  }

  [Symbol.iterator](): IterableIterator<[string, Row]> {
    return this.entries();
  }

  // ---------------------------------------------------------------- internals

  /** Packs the tail down to the hot rows, and deflates the pages left in the file's bytes, in the background (see adopt, fromRaw). */
  #packLater(): void {
    const raw = this.#holdsRawPages();
    if (this.#tail.size <= this.#limits.hotRows && !raw) return;
    packInBackground(this, raw);
  }

  /**
   * Whether a page is still a span of a file's bytes (fromRaw). Pages packed from the tail are
   * stepped over: counting them as raw made every compaction's copies "hold a file's bytes", and
   * each compaction then ended in a forced full GC (15 ms pauses under writes, issue 35).
   */
  #holdsRawPages(): boolean {
    const buffers = this.#pages.buffers;
    while (this.#rawNext < buffers.length && !(buffers[this.#rawNext] instanceof RawPage)) this.#rawNext++;
    return this.#rawNext < buffers.length;
  }

  /**
   * One slice of background packing for this partition, until `deadline`: the pages left in the
   * file's bytes first (in place: a walk in progress reads the same rows either way), then the
   * tail ('busy' while a walk is in progress).
   */
  packSlice(deadline: number): 'done' | 'more' | 'busy' {
    const deflating = this.#deflateRaw() === 'deflating';
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
    return this.#index.find(idHash(id), (page) => this.#rowIn(page, id) !== undefined);
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
    const page = this.#pages.buffers.length;
    this.#pages.buffers.push(this.#encode(`[${parts.join(',\n')}]`));
    this.#pages.live.push(parts.length);
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
    for (const row of this.#parse(page)) {
      const id = row.id;
      const change = changes.get(id);
      if (change === undefined) rows.push(row);
      else if (change === null) this.#index.remove(idHash(id), page);
      else rows.push(change);
    }
    this.#texts.delete(page);
    this.#pages.buffers[page] = rows.length === 0 ? null : this.#encode(`[${rows.map((row) => JSON.stringify(row)).join(',\n')}]`);
  }

  #encode(json: string): Buffer {
    const text = Buffer.from(json, 'utf8');
    this.#pages.dictionary ??= Buffer.from(text.subarray(Math.max(0, text.length - DICTIONARY_BYTES)));
    return keep(deflateRawSync(text, { level: 6, dictionary: this.#pages.dictionary }));
  }

  /**
   * Puts the pages the thread pool has deflated (deflateLater) in place of their spans, in order:
   * 'deflating' while one is not done yet, 'done' once none is left.
   */
  #deflateRaw(): 'done' | 'deflating' {
    const buffers = this.#pages.buffers;
    for (; this.#rawNext < buffers.length; this.#rawNext++) {
      const entry = buffers[this.#rawNext];
      if (!(entry instanceof RawPage)) continue;
      if (entry.deflated === null) return 'deflating';
      buffers[this.#rawNext] = entry.deflated;
    }
    return 'done';
  }

  #parse(page: number): Row[] {
    const bytes = this.#texts.get(page) ?? this.#inflate(page);
    return bytes.length === 0 ? [] : (JSON.parse(bytes.toString('utf8')) as Row[]);
  }

  #inflate(page: number): Buffer {
    let entry = this.#pages.buffers[page];
    if (entry instanceof RawPage) {
      if (entry.deflated === null) return rawText(entry);
      entry = this.#pages.buffers[page] = entry.deflated;
    }
    return entry ? inflateRawSync(entry, { dictionary: this.#pages.dictionary! }) : EMPTY;
  }

  /** A page's text, through the cache of inflated pages. */
  #text(page: number): Buffer {
    let text = this.#texts.get(page);
    if (text !== undefined) {
      this.#texts.delete(page);
    } else {
      text = this.#inflate(page);
      if (this.#texts.size >= CACHED_PAGES) this.#texts.delete(this.#texts.keys().next().value!);
    }
    this.#texts.set(page, text);
    return text;
  }

  /**
   * The row `id` of a packed page (as packed: changes not applied), parsing its line alone. A page is
   * `[row,\nrow,\n...row]` (JSON.stringify writes no raw newline), so the lines holding the id's JSON
   * string are the candidates; the row whose own id it is answers (another row may name it).
   */
  #rowIn(page: number, id: string): Row | undefined {
    const text = this.#text(page);
    const needle = JSON.stringify(id);
    for (let at = text.indexOf(needle); at >= 0; ) {
      const start = text.lastIndexOf('\n', at) + 1 || 1; // the first line starts after '['
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const row = JSON.parse(text.toString('utf8', start, end - 1)) as Row; // without the ',' or the final ']'
      if (row.id === id) return row;
      at = text.indexOf(needle, end);
    }
    return undefined;
  }
}

/**
 * Pages of a file's bytes waiting to be deflated, oldest first (held weakly: a page of a store
 * replaced meanwhile is skipped), and how many zlib's thread pool is deflating now. Deflating
 * ~37,000 pages of 100k bookings is ~5 s of CPU: in the thread pool it runs beside the event
 * loop, on the second core where there is one. At most two at once, so that the pool (4 threads,
 * shared with the file system) always has a thread for a journal write or an fsync.
 */
const waiting: ([WeakRef<RawPage>, Buffer] | undefined)[] = [];
let waitingHead = 0;
let deflating = 0;
const DEFLATING_AT_ONCE = 2;

function deflateLater(page: RawPage, dictionary: Buffer): void {
  waiting.push([new WeakRef(page), dictionary]);
  deflateWaiting();
}

function deflateWaiting(): void {
  while (deflating < DEFLATING_AT_ONCE && waitingHead < waiting.length) {
    const [ref, dictionary] = waiting[waitingHead]!;
    waiting[waitingHead++] = undefined;
    const page = ref.deref();
    if (page === undefined || page.deflated !== null) continue;
    const text = rawText(page);
    deflating++;
    deflateRaw(text, { level: 6, dictionary }, (err, deflated) => {
      deflating--;
      // (an error here would be zlib's own: the page is then deflated on the event loop)
      page.deflated = keep(err ? deflateRawSync(text, { level: 6, dictionary }) : deflated);
      page.rows = null;
      deflateWaiting();
    });
  }
  if (waitingHead === waiting.length) {
    waiting.length = 0;
    waitingHead = 0;
  }
}

/** A page's text, `[row,\nrow,...]`, from the spans of the file's bytes. */
function rawText(page: RawPage): Buffer {
  const { source, rowStarts, rowEnds } = page.rows!;
  let length = 2 + 2 * (page.to - page.from - 1);
  for (let i = page.from; i < page.to; i++) length += rowEnds[i]! - rowStarts[i]!;
  const text = Buffer.allocUnsafe(length);
  text[0] = 0x5b; // [
  let at = 1;
  for (let i = page.from; i < page.to; i++) {
    if (i > page.from) at += text.write(',\n', at, 'latin1');
    at += source.copy(text, at, rowStarts[i]!, rowEnds[i]!);
  }
  text[at] = 0x5d; // ]
  return text;
}

/** idHash of row i's key, from its bytes (plain ASCII, as ids are) or else from the parsed key. */
function rawIdHash(raw: RawRows, i: number): number {
  const { source } = raw;
  const start = raw.keyStarts[i]! + 1;
  const end = raw.keyEnds[i]! - 1;
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) {
    const c = source[k]!;
    if (c === 0x5c || c >= 0x80) return idHash(JSON.parse(source.toString('utf8', start - 1, end + 1)) as string);
    h ^= c;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A copy of a partition's rows that changes to the original do not reach. */
export function copyRows(rows: RowMap): RowMap {
  return rows instanceof PackedRows ? rows.copy() : new Map(rows as Map<string, Row>);
}

/** The rows a partition should hold after growing: packed once it is large, if its collection allows. */
export function packIfLarge(collection: string, rows: RowMap, mode: PackMode): RowMap {
  return rows instanceof Map && rows.size > packLimits().packAfter && packableCollection(collection) ? PackedRows.adopt(rows as Map<string, Row>, mode) : rows;
}
