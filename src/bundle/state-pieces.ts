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
