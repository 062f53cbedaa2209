import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Row } from '../storage/index.ts';
import { type StateTable, tableOf } from './state-table.ts';

/**
 * One collection of the state as the engine held it when the bundle was asked for: each
 * partition's rows as a detached scan (Store.scan; a packed partition copied as its pages, in
 * O(pages)), so that its tables can be built later, a piece at a time, from the state of that one
 * moment, whatever is committed meanwhile.
 */
export interface CollectionCopy {
  name: string;
  partitions: [string, Iterable<Row>][];
}

/**
 * A partition is kept as tables of at most this many rows, in order (./state-table.ts). A column of
 * two thousand values is longer than gzip's 32 KB window for most fields, so the likeness of a
 * column is found about as well as in one table of the whole partition, while a bundle is written
 * a table at a time: a megabyte or two at hand at once instead of the whole state's rows, columns
 * and text (140 MB more RSS for 10,000 bookings, every fresh page a fault: docs/benchmarks.md,
 * "The failure bundle").
 */
export const TABLE_ROWS = 2000;

/**
 * A partition's rows as its tables, each built when asked for, straight from the scan: a row is
 * garbage once its values are in the columns, so it dies young instead of waiting in a list for
 * its table (tables of 4,000 rows took 1.2 s held in a list, 1.0 s so; of 2,000, 0.9 s either way).
 */
export function* tablesOf(partition: Iterable<Row>): Generator<StateTable> {
  const rows = partition[Symbol.iterator]();
  for (;;) {
    const table = tableOf(take(rows, TABLE_ROWS));
    if (table.rows === 0) return;
    yield table;
  }
}

function* take(rows: Iterator<Row>, count: number): Generator<Row> {
  for (let i = 0; i < count; i++) {
    const next = rows.next();
    if (next.done) return;
    yield next.value;
  }
}

/**
 * The collection as a member of the state's `collections` object, `"name":{"<partition>":[table,…],…}`,
 * in pieces of text: each column of each table as JSON.stringify made it, the punctuation apart.
 * A string joined to another is a rope, which UTF-8 encoding must flatten first; and one character
 * past Latin-1 (a name in a note) makes a whole string two bytes a character, which encodes several
 * times slower: cut by column, only that column's text is.
 */
export function* pieceTexts(copy: CollectionCopy): Generator<string> {
  yield `${JSON.stringify(copy.name)}:{`;
  for (let p = 0; p < copy.partitions.length; p++) {
    const [partition, rows] = copy.partitions[p]!;
    yield `${p > 0 ? ',' : ''}${JSON.stringify(partition)}:[`;
    let first = true;
    for (const table of tablesOf(rows)) {
      yield `${first ? '' : ','}{"rows":${table.rows},"columns":{`;
      first = false;
      let field = 0;
      for (const name in table.columns) {
        yield `${field++ > 0 ? ',' : ''}${JSON.stringify(name)}:`;
        yield JSON.stringify(table.columns[name]);
      }
      yield '}';
      if (table.dictionaries) yield `,"dictionaries":${JSON.stringify(table.dictionaries)}`;
      yield table.absent ? `,"absent":${JSON.stringify(table.absent)}}` : '}';
    }
    yield ']';
  }
  yield '}';
}

/** Every collection's text, in order, with the commas between them. */
export function* statePieces(copies: Iterable<CollectionCopy>): Generator<string> {
  let first = true;
  for (const copy of copies) {
    if (!first) yield ',';
    first = false;
    yield* pieceTexts(copy);
  }
}

const gzipAsync = promisify(gzip);

/** gzip's level 4: level 2 was no faster here and 4% larger; 6, its default, 4% smaller and slower (docs/benchmarks.md, "The failure bundle") */
const GZIP_LEVEL = 4;
/**
 * The text as gzip members (RFC 1952, 2.2: a gzip file is a series of members, and every reader
 * gives back their texts joined), each of about MEMBER_BYTES, compressed on the thread pool while
 * the next is written. The text is written into buffers used again once their member is
 * compressed, by Buffer's own UTF-8 writer (several times faster than TextEncoder.encodeInto on
 * Node 20): fresh memory for each piece cost more than the encoding (every new page a fault).
 */
export class GzipMembers {
  readonly #members: Promise<Buffer>[] = [];
  readonly #free: Buffer[] = [];
  /** members compressed, in order: the first `#done` of #members */
  #done = 0;
  #buffer: Buffer = Buffer.allocUnsafeSlow(BUFFER_BYTES);
  #at = 0;

  /**
   * After a member was sent: a turn of the event loop, or, when IN_FLIGHT members are being
   * compressed and no buffer is free, the end of one of them. Writing on while gzip is behind
   * would only take fresh memory for the text waiting (every new page a fault).
   */
  async room(): Promise<void> {
    const waiting = this.#members.length - this.#done;
    if (this.#free.length > 0 || waiting <= IN_FLIGHT) return nextTurn();
    await this.#members[this.#done];
  }

  /** Adds a piece; true when a member was just sent to be compressed (then await room()). */
  write(text: string): boolean {
    let sent = false;
    // at most 3 bytes a UTF-16 unit: only a long piece near the end of a buffer is measured
    if (text.length * 3 > this.#room()) {
      const bytes = Buffer.byteLength(text);
      if (bytes > this.#room()) {
        sent = this.#send();
        if (bytes > this.#buffer.length) this.#buffer = Buffer.allocUnsafeSlow(bytes); // a piece longer than a buffer: one of its own
      }
    }
    this.#at += this.#buffer.write(text, this.#at);
    if (this.#at >= MEMBER_BYTES) sent = this.#send() || sent;
    return sent;
  }

  /** The members, in order, once all are compressed (not joined: a copy of megabytes costs a page fault every 4 KB). */
  end(): Promise<Buffer[]> {
    this.#send();
    return Promise.all(this.#members);
  }

  #room(): number {
    return this.#buffer.length - this.#at;
  }

  /** Sends what the buffer holds to be compressed, if anything, and takes a buffer for what follows. */
  #send(): boolean {
    if (this.#at === 0) return false;
    const buffer = this.#buffer;
    const member = gzipAsync(buffer.subarray(0, this.#at), { level: GZIP_LEVEL }).finally(() => {
      this.#done++;
      if (buffer.length === BUFFER_BYTES) this.#free.push(buffer);
    });
    member.catch(() => {}); // a failure is thrown by end() or room(), whichever comes first; never unhandled
    this.#members.push(member);
    this.#buffer = this.#free.pop() ?? Buffer.allocUnsafeSlow(BUFFER_BYTES);
    this.#at = 0;
    return true;
  }
}

/** a member's bytes: enough that starting gzip's window afresh costs nothing to speak of, few enough to keep little at hand */
const MEMBER_BYTES = 1024 * 1024;
/** members compressed at once at most while the text goes on: the thread pool has four threads, the machines two cores or more */
const IN_FLIGHT = 4;
/** a member and the piece that may overflow it (a column of two thousand values) */
const BUFFER_BYTES = 2 * MEMBER_BYTES;
