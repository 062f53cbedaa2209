/**
 * The walks over a packed partition (packed-rows.ts) that read many pages: every row in order,
 * the rows from a deep offset and the text search (the data inspector's pages), and
 * the snapshot's members copied from the pages' text (a compaction). They read pages
 * through PageTexts (packed-pages.ts implements it), and apply the map's changes and tail.
 */
import { rowHolds } from '../row-text.ts';
import type { Row } from '../types.ts';

/** What a walk reads of the pages. */
export interface PageTexts {
  readonly count: number;
  /** every row of the page is gone */
  isGone(page: number): boolean;
  /** its rows less those deleted since it was packed */
  liveRows(page: number): number;
  /** a page's rows as packed */
  parse(page: number): Row[];
  /** a page's text, `[row,\nrow,\n...row]`, not kept in the cache of read pages */
  textOnce(page: number): Buffer;
}

/** A packed row changed since it was packed. Never mutated: copies share these. */
export interface Change {
  readonly row: Row | null;
  readonly page: number;
}

/** A packed partition as the walks see it. */
export interface WalkSource {
  pages: PageTexts;
  /** packed rows changed since: the row now (null when deleted) and the page that holds the old one */
  changed: ReadonlyMap<string, Change>;
  /** rows not packed, in insertion order (all newer than every packed row) */
  tail: ReadonlyMap<string, Row>;
}

/** The row as it is now, of a row as packed (null: deleted since). */
function current(source: WalkSource, packed: Row): Row | null {
  const changed = source.changed.get(packed.id);
  return changed === undefined ? packed : changed.row;
}

export function* walkEntries(source: WalkSource): IterableIterator<[string, Row]> {
  const { pages } = source;
  for (let page = 0; page < pages.count; page++) {
    if (pages.isGone(page)) continue;
    for (const packed of pages.parse(page)) {
      const row = current(source, packed);
      if (row !== null) yield [packed.id, row];
    }
  }
  yield* source.tail;
}

/**
 * The rows from position `offset` on (in the order of walkEntries), for a page at a deep offset
 * (the inspector's data route, src/control/data.ts): whole pages before it are skipped by their
 * live counts, neither inflated nor parsed, so a page at 99,900 of 100k costs a page or two.
 */
export function* walkValuesFrom(source: WalkSource, offset: number): IterableIterator<Row> {
  const { pages } = source;
  let skip = Math.max(0, offset);
  let page = 0;
  for (; page < pages.count && skip >= pages.liveRows(page); page++) skip -= pages.liveRows(page);
  for (; page < pages.count; page++) {
    if (pages.isGone(page)) continue;
    for (const packed of pages.parse(page)) {
      const row = current(source, packed);
      if (row === null) continue;
      if (skip > 0) skip--;
      else yield row;
    }
  }
  for (const row of source.tail.values()) {
    if (skip > 0) skip--;
    else yield row;
  }
}

/**
 * The rows whose JSON, lower-cased, holds `needle` (lower-case), in order: a text search (the
 * inspector's `q`) that parses only the pages whose text holds the needle. A page with changes
 * since it was packed is tested row by row. With `pauses`, a null after each page: where a walk
 * in slices may stop for a while (only on a copy: see Store.scanMatching).
 */
export function* walkMatching(source: WalkSource, needle: string, pauses: boolean): IterableIterator<Row | null> {
  const { pages } = source;
  const changedPages = new Set<number>();
  for (const change of source.changed.values()) changedPages.add(change.page);
  for (let page = 0; page < pages.count; page++) {
    if (pauses && page > 0) yield null;
    if (pages.isGone(page)) continue;
    const text = pages.textOnce(page).toString('utf8');
    if (text === '') continue;
    if (changedPages.has(page)) {
      for (const packed of JSON.parse(text) as Row[]) {
        const row = current(source, packed);
        if (row !== null && rowHolds(row, needle)) yield row;
      }
      continue;
    }
    const lower = text.toLowerCase();
    if (!lower.includes(needle)) continue;
    // one row per line: only the lines that hold the needle are parsed
    const lines = text.split('\n');
    const lowered = lower.split('\n'); // lower-casing never makes or takes a newline: the same lines
    for (let i = 0; i < lines.length; i++) {
      const start = i === 0 ? 1 : 0; // after the page's '[', before the line's ',' or the final ']'
      if (lowered[i]!.slice(start, -1).includes(needle)) yield JSON.parse(lines[i]!.slice(start, -1)) as Row;
    }
  }
  for (const row of source.tail.values()) if (rowHolds(row, needle)) yield row;
}

/**
 * The snapshot file's members for these rows, `"id":row` joined with commas, a page at a time,
 * in the order of walkEntries: a row unchanged since it was packed is copied from its page's text
 * as it is, neither parsed nor serialised again (a stop right after a large seed
 * compacts every row; parsing and re-serialising 100k bookings' rows took longer than the stop's
 * deadline). Its text is what JSON.stringify wrote for it when it was packed.
 */
export function* walkJsonMembers(source: WalkSource): IterableIterator<string> {
  const { pages } = source;
  for (let page = 0; page < pages.count; page++) {
    if (pages.isGone(page)) continue;
    const bytes = pages.textOnce(page);
    if (bytes.length === 0) continue;
    const members: string[] = [];
    const lines = bytes.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.slice(i === 0 ? 1 : 0, -1); // without the page's '[', the ',' or the final ']'
      const member = memberOf(source, line);
      if (member !== null) members.push(member);
    }
    if (members.length > 0) yield members.join(',');
  }
  const members: string[] = [];
  for (const [id, row] of source.tail) members.push(`${JSON.stringify(id)}:${JSON.stringify(row)}`);
  if (members.length > 0) yield members.join(',');
}

/** One packed line as a snapshot member, its change applied (null: deleted since). */
function memberOf(source: WalkSource, line: string): string | null {
  let key: string | null = null;
  // `{"id":"...",` as JSON.stringify writes a row whose id comes first: the key is that string
  if (line.startsWith('{"id":"')) {
    const close = line.indexOf('"', 7);
    const backslash = line.indexOf('\\', 7);
    if (close > 0 && (backslash < 0 || backslash > close)) key = line.slice(6, close + 1);
  }
  const { changed } = source;
  if (key === null || (changed.size > 0 && changed.has(key.slice(1, -1)))) {
    const packed = JSON.parse(line) as Row;
    const change = changed.get(packed.id);
    const row = change === undefined ? packed : change.row;
    return row === null ? null : `${JSON.stringify(packed.id)}:${change === undefined ? line : JSON.stringify(row)}`;
  }
  return `${key}:${line}`;
}
