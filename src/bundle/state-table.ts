import { isSecretName, mayHoldSecretShape, redactJson, redactShapes } from '../core/redact.ts';
import type { Row } from '../storage/index.ts';

/**
 * A bundle keeps each partition of the state as a table by column, not as GET /__sandbox/state's
 * object of rows: the values of one field sit together, so gzip finds their likeness (a status, a
 * date, an id's prefix) in its 32 KB window. The state of 10,000 bookings with their passengers and
 * items is 5.3 MB gzipped as rows, 4.0 MB as columns (docs/benchmarks.md, "The failure bundle"),
 * and the bundle's bound is 5 MB with the request log beside it.
 *
 * `columns[field][i]` is the value of `field` in row i, in the partition's own order; a row without
 * the field has null there and its index in `absent[field]`, so a row comes back exactly as it was
 * (checked by StateTableSchema, ./schema.ts). A column whose values repeat (a status, the booking
 * three passengers share, a product id) keeps each value once, in `dictionaries[field]`, and
 * `columns[field][i]` is then its index there: less text to write and compress (17.6 MB of JSON
 * for 10,000 bookings instead of 22.7).
 * Every value is redacted on the way in, by the one rule (src/core/redact.ts): a field named like
 * a secret whole (a webhook subscription's signing `secret`), any other string by shape.
 */
export interface StateTable {
  rows: number;
  columns: Record<string, unknown[]>;
  dictionaries?: Record<string, unknown[]>;
  absent?: Record<string, number[]>;
}

/** The rows as one table, each value redacted. */
export function tableOf(rows: Iterable<Row>): StateTable {
  const columns: Record<string, unknown[]> = {};
  const absent: Record<string, number[]> = {};
  let count = 0;
  let width = 0;
  for (const row of rows) {
    let fields = 0;
    for (const field in row) {
      fields += 1;
      let column = columns[field];
      if (!column) {
        // a field first met at row `count`: the rows before it lacked it
        column = columns[field] = new Array<unknown>(count).fill(null);
        if (count > 0) absent[field] = Array.from({ length: count }, (_, i) => i);
        width += 1;
      }
      column.push(row[field]);
    }
    count += 1;
    // the usual row has every field met so far, and so has filled every column
    if (fields === width) continue;
    for (const field in columns) {
      const column = columns[field]!;
      if (column.length < count) {
        column.push(null);
        (absent[field] ??= []).push(count - 1);
      }
    }
  }
  const table: StateTable = { rows: count, columns };
  for (const field in columns) {
    const coded = dictionaryOf(columns[field]!);
    if (coded === null) {
      columns[field] = redactedColumn(field, columns[field]!);
      continue;
    }
    columns[field] = coded.codes;
    // redacted once a value, not once a row
    (table.dictionaries ??= {})[field] = redactedColumn(field, coded.values);
  }
  if (Object.keys(absent).length > 0) table.absent = absent;
  return table;
}

/** a column is kept by dictionary when it has at most one distinct value in this many */
const REPEATS = 2;
/** after this many values, a column that has repeated too little so far (ids, times) is written as it is */
const SAMPLE = 64;

/**
 * The column's distinct values in the order met and each row's index among them, or null when its
 * values repeat too little to be worth it. Values are the same when their JSON is (an object too).
 */
function dictionaryOf(column: readonly unknown[]): { values: unknown[]; codes: number[] } | null {
  const values: unknown[] = [];
  const codes = new Array<number>(column.length);
  const plain = new Map<unknown, number>();
  let objects: Map<string, number> | null = null;
  for (let i = 0; i < column.length; i++) {
    const value = column[i];
    const isObject = value !== null && typeof value === 'object';
    const key = isObject ? JSON.stringify(value) : value;
    const seen = isObject ? (objects ??= new Map()) : plain;
    let code = seen.get(key);
    if (code === undefined) {
      code = values.length;
      seen.set(key, code);
      values.push(value);
      if (i >= SAMPLE && values.length * REPEATS > i + 1) return null;
    }
    codes[i] = code;
  }
  return values.length * REPEATS <= column.length ? { values, codes } : null;
}

/** One rule per column: a secret's name is judged once, not once a row. */
function redactedColumn(field: string, values: unknown[]): unknown[] {
  if (isSecretName(field)) return values.map((value) => redactJson(value, field));
  let out: unknown[] | null = null;
  // most values are ids, dates and statuses: one cheap test of a shape for the column's strings
  // joined (a shape never spans the line between two), and each string tested alone only after it
  const shapes = mayHoldSecretShape(values.join('\n'));
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    const redacted =
      typeof value === 'string' ? (shapes ? redactShapes(value) : value) : value !== null && typeof value === 'object' ? redactJson(value) : value;
    if (redacted !== value) (out ??= values.slice())[i] = redacted;
  }
  return out ?? values;
}

/** The rows of a partition's tables, by id, in the order they were kept. */
export function rowsOf(tables: readonly StateTable[]): Record<string, Row> {
  const rows: Record<string, Row> = Object.create(null);
  for (const table of tables) {
    const fields = Object.keys(table.columns);
    const missing = new Map<string, Set<number>>();
    for (const [field, indexes] of Object.entries(table.absent ?? {})) missing.set(field, new Set(indexes));
    const dictionaries = table.dictionaries ?? {};
    for (let i = 0; i < table.rows; i++) {
      const row: Record<string, unknown> = {};
      for (const field of fields) {
        if (missing.get(field)?.has(i)) continue;
        const value = table.columns[field]![i];
        row[field] = Object.hasOwn(dictionaries, field) ? dictionaries[field]![value as number] : value;
      }
      rows[String(row.id)] = row as Row;
    }
  }
  return rows;
}
