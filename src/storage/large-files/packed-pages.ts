/**
 * A packed partition's pages (packed-rows.ts): about 8 KB of rows' JSON each, one row per line
 * (`[row,\nrow,\n...row]`), deflated with the partition's first page as the dictionary, and the
 * last pages read kept inflated. A page may still be a span of a file's bytes (raw-pages.ts)
 * until the background deflates it. Pages only: which rows are live, changed or hot is the
 * map's business (packed-rows.ts); the walks over pages are packed-walks.ts.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { keep } from './page-arena.ts';
import type { PageTexts } from './packed-walks.ts';
import { deflateLater, RawPage, rawText } from './raw-pages.ts';
import type { Row } from '../types.ts';

/** an inflated page of no rows */
const EMPTY = Buffer.alloc(0);
/** inflated page texts kept (~8 KB each) */
const CACHED_PAGES = 32;
/** zlib's window: a longer dictionary is not used */
const DICTIONARY_BYTES = 32 * 1024;

/** The array of pages is each copy's own (copy() copies it); the buffers and the dictionary are shared, never changed. */
export class PackedPages implements PageTexts {
  /** deflated pages; a RawPage until the background deflates it; null once every row is gone */
  readonly buffers: (Buffer | RawPage | null)[];
  dictionary: Buffer | null;
  /** live rows of each page (its rows less those deleted since): valuesFrom() skips whole pages by it */
  readonly live: number[];
  /**
   * inflated pages, least recently used first. Kept as the inflated bytes: a row read finds its
   * line in them and decodes that line alone (decoding the whole 8 KB page to a string was ~11%
   * of a list page of 100 rows read from 100 pages)
   */
  #texts = new Map<number, Buffer>();
  /** pages before this one are deflated: a RawPage is only at or after it */
  #rawNext = 0;

  constructor(from?: PackedPages) {
    this.buffers = from ? from.buffers.slice() : [];
    this.dictionary = from ? from.dictionary : null;
    this.live = from ? from.live.slice() : [];
    this.#rawNext = from ? from.#rawNext : 0;
  }

  get count(): number {
    return this.buffers.length;
  }

  isGone(page: number): boolean {
    return this.buffers[page] === null;
  }

  liveRows(page: number): number {
    return this.live[page]!;
  }

  /** Appends a page of these rows' JSON texts; returns its number. */
  append(lines: readonly string[]): number {
    this.buffers.push(this.#encode(`[${lines.join(',\n')}]`));
    this.live.push(lines.length);
    return this.buffers.length - 1;
  }

  /** Appends a page still in a file's bytes (fromRaw); deflateRawLater() then deflates them all. */
  appendRaw(page: RawPage): void {
    this.buffers.push(page);
    this.live.push(page.to - page.from);
  }

  /** The raw pages go to the thread pool; the first one's text is the dictionary, as #encode would make it. */
  deflateRawLater(): void {
    const first = this.buffers[0];
    if (!(first instanceof RawPage)) return;
    const text = rawText(first);
    const dictionary = (this.dictionary = Buffer.from(text.subarray(Math.max(0, text.length - DICTIONARY_BYTES))));
    for (const page of this.buffers) if (page instanceof RawPage) deflateLater(page, dictionary);
  }

  /** Replaces one page with these rows (none: the page is gone); its place in the order is kept. */
  replace(page: number, rows: readonly Row[]): void {
    this.#texts.delete(page);
    this.buffers[page] = rows.length === 0 ? null : this.#encode(`[${rows.map((row) => JSON.stringify(row)).join(',\n')}]`);
  }

  /** pages still spans of the file's bytes (diagnostics, tests) */
  get rawPages(): number {
    let raw = 0;
    for (let page = this.#rawNext; page < this.buffers.length; page++) {
      const entry = this.buffers[page];
      if (entry instanceof RawPage && entry.deflated === null) raw++;
    }
    return raw;
  }

  /**
   * Whether a page is still a span of a file's bytes. Pages packed from the tail are stepped
   * over: counting them as raw made every compaction's copies "hold a file's bytes", and each
   * compaction then ended in a forced full GC (15 ms pauses under writes).
   */
  holdsRawPages(): boolean {
    while (this.#rawNext < this.buffers.length && !(this.buffers[this.#rawNext] instanceof RawPage)) this.#rawNext++;
    return this.#rawNext < this.buffers.length;
  }

  /**
   * Puts the pages the thread pool has deflated (deflateLater) in place of their spans, in order:
   * 'deflating' while one is not done yet, 'done' once none is left.
   */
  deflateRaw(): 'done' | 'deflating' {
    const buffers = this.buffers;
    for (; this.#rawNext < buffers.length; this.#rawNext++) {
      const entry = buffers[this.#rawNext];
      if (!(entry instanceof RawPage)) continue;
      if (entry.deflated === null) return 'deflating';
      buffers[this.#rawNext] = entry.deflated;
    }
    return 'done';
  }

  /** A page's rows as packed (changes not applied). */
  parse(page: number): Row[] {
    const bytes = this.textOnce(page);
    return bytes.length === 0 ? [] : (JSON.parse(bytes.toString('utf8')) as Row[]);
  }

  /** A page's text without caching it: a walk over every page would only push the read rows' pages out. */
  textOnce(page: number): Buffer {
    return this.#texts.get(page) ?? this.#inflate(page);
  }

  /**
   * The row `id` of a page (as packed: changes not applied), parsing its line alone. A page is
   * `[row,\nrow,\n...row]` (JSON.stringify writes no raw newline), so the lines holding the id's JSON
   * string are the candidates; the row whose own id it is answers (another row may name it).
   */
  rowIn(page: number, id: string): Row | undefined {
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

  #encode(json: string): Buffer {
    const text = Buffer.from(json, 'utf8');
    this.dictionary ??= Buffer.from(text.subarray(Math.max(0, text.length - DICTIONARY_BYTES)));
    return keep(deflateRawSync(text, { level: 6, dictionary: this.dictionary }));
  }

  #inflate(page: number): Buffer {
    let entry = this.buffers[page];
    if (entry instanceof RawPage) {
      if (entry.deflated === null) return rawText(entry);
      entry = this.buffers[page] = entry.deflated;
    }
    return entry ? inflateRawSync(entry, { dictionary: this.dictionary! }) : EMPTY;
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
}
