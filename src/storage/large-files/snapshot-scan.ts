/**
 * Opening a large snapshot file without parsing every row.
 *
 * `JSON.parse` of a 326 MB file of 100k seeded bookings took ~4.5 s, building
 * the partitions ~2 s more, and its garbage held RSS at 1.6 GiB (docs/storage.md
 * "Opening a large file"). The file the sandbox writes is compact JSON with each
 * row written by `JSON.stringify`: exactly the text a packed page holds for it
 * (packed-rows.ts). So the bytes are scanned instead: the structure down to the
 * rows is walked (strings skipped with indexOf), every partition that will be
 * packed keeps its rows as spans of the file's bytes (RawRows), and only the
 * other partitions are parsed. The pages of RawRows are deflated in the
 * background, and the file's bytes are let go once the last one is.
 *
 * A partition's rows stay spans only when each row, as written, is an object
 * that starts with its own `"id":<key>` and holds no raw newline (a page is one
 * row per line); otherwise that partition is parsed as before. Anything else the
 * scan does not expect (whitespace where the sandbox writes none, a truncated
 * file, a duplicate key) returns null, and the file is parsed whole, with the
 * usual one-line errors. Pure functions: no I/O here.
 */
import {
  CLOSE_ARRAY as CLOSE_BRACKET,
  CLOSE_OBJECT as CLOSE_BRACE,
  COLON,
  COMMA,
  NEWLINE,
  OPEN_ARRAY as OPEN_BRACKET,
  OPEN_OBJECT as OPEN_BRACE,
  QUOTE,
  stringEnd,
} from '../json-bytes.ts';
import { packableCollection } from '../collection.ts';
import { packLimits } from './pack-policy.ts';

/** what every file the sandbox writes starts with (snapshot-text.ts) */
const HEAD = Buffer.from('{"schemaVersion":');
/** a row the sandbox wrote starts with its id: `{"id":` then the key's own JSON */
const ID_PREFIX = Buffer.from('{"id":');

/**
 * The rows of one large partition as they are in the file: row i's key is
 * `source[keyStarts[i], keyEnds[i])` (with its quotes) and its JSON
 * `source[rowStarts[i], rowEnds[i])`. PackedRows.fromRaw makes pages of them.
 */
export class RawRows {
  constructor(
    readonly source: Buffer,
    readonly keyStarts: Float64Array,
    readonly keyEnds: Float64Array,
    readonly rowStarts: Float64Array,
    readonly rowEnds: Float64Array,
  ) {}

  get size(): number {
    return this.rowStarts.length;
  }
}

/** Not the layout the scan knows: the caller parses the file whole instead. */
class NotScannable extends Error {}
const stop = (): never => {
  throw new NotScannable();
};

/** The index after the string that starts at `at` (a quote). */
function skipString(b: Buffer, at: number): number {
  const end = stringEnd(b, at);
  return end < 0 ? stop() : end;
}

/** The index after the object or array that starts at `at`; `lines.newline` set when a raw newline is in it. */
function skipComposite(b: Buffer, at: number, lines: { newline: boolean }): number {
  let depth = 0;
  for (let i = at; i < b.length; i++) {
    const c = b[i]!;
    if (c === QUOTE) i = skipString(b, i) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1;
    } else if (c === NEWLINE) lines.newline = true;
  }
  return stop();
}

/** The index after a scalar value (number, true, false, null) that starts at `at`. */
function skipScalar(b: Buffer, at: number): number {
  let i = at;
  while (i < b.length && b[i] !== COMMA && b[i] !== CLOSE_BRACE && b[i] !== CLOSE_BRACKET) i++;
  return i;
}

function skipValue(b: Buffer, at: number, lines: { newline: boolean }): number {
  const c = b[at];
  if (c === QUOTE) return skipString(b, at);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return skipComposite(b, at, lines);
  return skipScalar(b, at);
}

/**
 * Calls `member(keyStart, keyEnd, valueStart)` for each member of the object at
 * `at` (compact JSON: no whitespace); `member` returns where its value ends.
 * Returns the index after the object.
 */
function members(b: Buffer, at: number, member: (keyStart: number, keyEnd: number, valueStart: number) => number): number {
  if (b[at] !== OPEN_BRACE) return stop();
  let i = at + 1;
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return stop();
    const keyEnd = skipString(b, i);
    if (b[keyEnd] !== COLON) return stop();
    i = member(i, keyEnd, keyEnd + 1);
    if (b[i] === COMMA) i++;
    else if (b[i] === CLOSE_BRACE) return i + 1;
    else return stop();
  }
}

const keyText = (b: Buffer, start: number, end: number): string => JSON.parse(b.toString('utf8', start, end)) as string;

/** Float64Array views of growing number lists (offsets may pass 2^31 in a file near 512 MiB). */
class Offsets {
  #data = new Float64Array(1024);
  length = 0;
  push(value: number): void {
    if (this.length === this.#data.length) {
      const grown = new Float64Array(this.#data.length * 2);
      grown.set(this.#data);
      this.#data = grown;
    }
    this.#data[this.length++] = value;
  }
  done(): Float64Array {
    return this.#data.slice(0, this.length);
  }
}

/**
 * One partition: its rows as spans (RawRows) when it will be packed and every
 * row qualifies, else its parsed value. Returns [value, end].
 */
function partition(b: Buffer, at: number, packable: boolean): [unknown, number] {
  const lines = { newline: false };
  if (!packable) {
    const end = skipComposite(b, at, lines);
    return [JSON.parse(b.toString('utf8', at, end)), end];
  }
  const keyStarts = new Offsets();
  const keyEnds = new Offsets();
  const rowStarts = new Offsets();
  const rowEnds = new Offsets();
  let qualifies = true;
  const end = members(b, at, (keyStart, keyEnd, valueStart) => {
    const valueEnd = skipValue(b, valueStart, lines);
    if (qualifies) {
      const idEnd = valueStart + ID_PREFIX.length + (keyEnd - keyStart);
      qualifies =
        !lines.newline &&
        b.compare(ID_PREFIX, 0, ID_PREFIX.length, valueStart, valueStart + ID_PREFIX.length) === 0 &&
        b.compare(b, keyStart, keyEnd, valueStart + ID_PREFIX.length, idEnd) === 0 &&
        (b[idEnd] === COMMA || b[idEnd] === CLOSE_BRACE);
      keyStarts.push(keyStart);
      keyEnds.push(keyEnd);
      rowStarts.push(valueStart);
      rowEnds.push(valueEnd);
    }
    return valueEnd;
  });
  if (!qualifies || rowStarts.length <= packLimits().packAfter) return [JSON.parse(b.toString('utf8', at, end)), end];
  return [new RawRows(b, keyStarts.done(), keyEnds.done(), rowStarts.done(), rowEnds.done()), end];
}

/** Object.fromEntries refuses no key ("__proto__" included) and keeps the first place of a repeated one: repeats are refused here. */
function entriesOnce(b: Buffer, at: number, value: (name: string, valueStart: number) => [unknown, number]): [Record<string, unknown>, number] {
  const entries: [string, unknown][] = [];
  const seen = new Set<string>();
  const end = members(b, at, (keyStart, keyEnd, valueStart) => {
    const name = keyText(b, keyStart, keyEnd);
    if (seen.has(name)) return stop(); // JSON.parse keeps the last one: the whole parse decides
    seen.add(name);
    const [parsed, valueEnd] = value(name, valueStart);
    entries.push([name, parsed]);
    return valueEnd;
  });
  return [Object.fromEntries(entries), end];
}

/**
 * The snapshot in `bytes` with the rows of its large packable partitions left
 * as RawRows, or null when the file is not laid out as the sandbox writes it
 * (the caller then parses it whole; its checks and errors are those of
 * parseSnapshotText). The top-level fields are returned unchecked.
 */
export function scanSnapshot(bytes: Buffer): Record<string, unknown> | null {
  if (bytes.length < HEAD.length || bytes.compare(HEAD, 0, HEAD.length, 0, HEAD.length) !== 0) return null;
  try {
    const lines = { newline: false };
    const [top, end] = entriesOnce(bytes, 0, (name, at) => {
      if (name !== 'collections' || bytes[at] !== OPEN_BRACE) {
        const valueEnd = skipValue(bytes, at, lines);
        return [JSON.parse(bytes.toString('utf8', at, valueEnd)), valueEnd];
      }
      return entriesOnce(bytes, at, (collection, partitionsAt) => {
        if (bytes[partitionsAt] !== OPEN_BRACE) {
          const valueEnd = skipValue(bytes, partitionsAt, lines);
          return [JSON.parse(bytes.toString('utf8', partitionsAt, valueEnd)), valueEnd];
        }
        const packable = packableCollection(collection);
        return entriesOnce(bytes, partitionsAt, (_workspaceId, rowsAt) => {
          if (bytes[rowsAt] !== OPEN_BRACE) {
            const valueEnd = skipValue(bytes, rowsAt, lines);
            return [JSON.parse(bytes.toString('utf8', rowsAt, valueEnd)), valueEnd];
          }
          return partition(bytes, rowsAt, packable);
        });
      });
    });
    // only a trailing newline may follow (JSON.parse allows whitespace there; the rest is a parse's to refuse)
    for (let i = end; i < bytes.length; i++) if (bytes[i] !== NEWLINE && bytes[i] !== 0x20 && bytes[i] !== 0x0d && bytes[i] !== 0x09) return null;
    return top;
  } catch (err) {
    if (err instanceof NotScannable || err instanceof SyntaxError) return null;
    throw err;
  }
}

/** Whether a partition's value is rows left in the file's bytes (codec.ts packs them from there). */
export const isRawRows = (value: unknown): value is RawRows => value instanceof RawRows;
