import { z } from 'zod';
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
 * the field has null there and its index in `absent[field]`, so a row comes back exactly as it was.
 * Every value is redacted on the way in, by the one rule (src/core/redact.ts): a field named like
 * a secret whole (a webhook subscription's signing `secret`), any other string by shape.
 */
export const StateTableSchema = z.object({
  rows: z.number().int().min(0),
  columns: z.record(z.string(), z.array(z.unknown())),
  absent: z.record(z.string(), z.array(z.number().int())).optional(),
});
export type StateTable = z.output<typeof StateTableSchema>;

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
  for (const field in columns) columns[field] = redactedColumn(field, columns[field]!);
  return Object.keys(absent).length > 0 ? { rows: count, columns, absent } : { rows: count, columns };
}

/** One rule per column: a secret's name is judged once, not once a row. */
function redactedColumn(field: string, values: unknown[]): unknown[] {
  if (isSecretName(field)) return values.map((value) => redactJson(value, field));
  let out: unknown[] | null = null;
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // most values are ids, dates and statuses: the cheap test of a shape, and nothing more
    const redacted =
      typeof value === 'string'
        ? mayHoldSecretShape(value)
          ? redactShapes(value)
          : value
        : value !== null && typeof value === 'object'
          ? redactJson(value)
          : value;
    if (redacted !== value) (out ??= values.slice())[i] = redacted;
  }
  return out ?? values;
}

/** The rows of a table, by id, in the order they were kept. */
export function rowsOf(table: StateTable): Record<string, Row> {
  const fields = Object.keys(table.columns);
  const missing = new Map<string, Set<number>>();
  for (const [field, indexes] of Object.entries(table.absent ?? {})) missing.set(field, new Set(indexes));
  const rows: Record<string, Row> = Object.create(null);
  for (let i = 0; i < table.rows; i++) {
    const row: Record<string, unknown> = {};
    for (const field of fields) if (!missing.get(field)?.has(i)) row[field] = table.columns[field]![i];
    rows[String(row.id)] = row as Row;
  }
  return rows;
}
