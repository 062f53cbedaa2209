import type { z } from 'zod';
import { depthProblem, MAX_STATE_DEPTH } from '../core/json-depth.ts';
import { suggest } from '../core/suggest.ts';
import { unknownFields } from '../http/unknown-fields.ts';
import { BASE_PREFIX, GLOBAL_PARTITION, isTombstone, OVERLAYS, type CollectionRegistry, type Row } from '../storage/index.ts';
import { BASES } from '../workspaces/manager.ts';

/**
 * The check of a whole state that comes from outside the sandbox:
 * `PUT /__sandbox/state` (so `sandbox snapshot import`), and a hand
 * edit of the database file under `--watch`. Unchecked, an import of
 * `{"bad": {"id": "bad", "garbage": true}}` in the bookings would be accepted and
 * served by every `GET /v1/bookings` and every restart after, and a row whose
 * id differs from its key would be a 500.
 *
 * Every collection must be one the sandbox declares, every row must pass its
 * collection's record schema with no field the schema does not know, and every
 * row's `id` must equal its key. The first problem is refused in one line
 * naming the collection, the row and the field; nothing is replaced.
 * Snapshot restores and resets hand over the sandbox's own rows and skip it.
 *
 * An export also holds the rows of workspaces on demand (docs/architecture.md,
 * "Workspaces on demand"): the overlay and base records, template rows in
 * `~base:` partitions (checked as any row), and a deleted row's tombstone
 * `{id, "~deleted": true}` in a created workspace's own partition.
 */
export class StateImportError extends Error {
  override readonly name = 'StateImportError';
}

/** Rows sit four levels into a state document ({collections: {name: {workspace: {id: row}}}}). */
const ROW_DEPTH = MAX_STATE_DEPTH - 4;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Names from the file, kept short: a key can be any length */
export const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s);
export const quote = (s: string) => JSON.stringify(clip(s));

/** The engine's own collections (workspaces on demand), beside the ones the areas declare. */
const ENGINE: ReadonlyMap<string, { schema: z.ZodType }> = new Map<string, { schema: z.ZodType }>([
  [OVERLAYS.name, OVERLAYS],
  [BASES.name, BASES],
]);

/** The first problem of an imported state's `collections`, as one line, or null when every row is good. */
export function stateImportProblem(collections: unknown, registry: CollectionRegistry): string | null {
  if (!isPlainObject(collections)) return '"collections" is not an object of collections';
  const overlays = collections[OVERLAYS.name];
  const created = new Set(isPlainObject(overlays) && isPlainObject(overlays[GLOBAL_PARTITION]) ? Object.keys(overlays[GLOBAL_PARTITION]) : []);
  for (const [name, partitions] of Object.entries(collections)) {
    const collection = importedCollection(name, registry);
    if (typeof collection === 'string') return collection;
    if (!isPlainObject(partitions)) return `collection ${clip(name)}: not an object of workspaces`;
    for (const [workspaceId, rows] of Object.entries(partitions)) {
      if (!isPlainObject(rows)) return `collection ${name}, workspace ${clip(workspaceId)}: not an object of rows by id`;
      const ownPartition = created.has(workspaceId) && !workspaceId.startsWith(BASE_PREFIX);
      for (const [key, row] of Object.entries(rows)) {
        const problem = ownPartition && isTombstoneRow(key, row) ? null : rowProblem(collection.schema, name, key, row);
        if (problem) return `${name} row ${quote(key)} (workspace ${clip(workspaceId)}): ${problem}`;
      }
    }
  }
  return null;
}

/** A collection an import may hold (the areas' and the engine's), or the line that refuses its name. */
export function importedCollection(name: string, registry: CollectionRegistry): { schema: z.ZodType } | string {
  return (
    registry.get(name) ?? ENGINE.get(name) ?? `collection ${quote(name)} is not one this sandbox knows${name.length <= 64 ? suggest(name, registry.names) : ''}`
  );
}

/** `{id, "~deleted": true}` and nothing else: a created workspace's deletion of a template row */
export const isTombstoneRow = (key: string, row: unknown): boolean =>
  isPlainObject(row) && row.id === key && isTombstone(row as Row) && Object.keys(row).length === 2;

/** The first problem of one row stored under `key`, or null. */
export function rowProblem(schema: z.ZodType, collection: string, key: string, row: unknown): string | null {
  if (!isPlainObject(row)) return 'not an object';
  if (row.id !== key) {
    const id = typeof row.id === 'string' ? quote(row.id) : (JSON.stringify(row.id) ?? 'missing');
    return `id: is ${id.length > 64 ? 'another value' : id}, but a row's id must equal the key it is stored under`;
  }
  // before the schema: a value nested too deep would overflow the stack where it is written out
  const tooDeep = depthProblem(row, ROW_DEPTH, '');
  if (tooDeep) return tooDeep;
  const result = schema.safeParse(row);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    return `${issue.path.length ? issue.path.map(String).join('.') : '(row)'}: ${issue.message}`;
  }
  const unknown = unknownFields(schema, row, '');
  if (unknown.length > 0) return `${unknown[0]!.replace(/^\./, '')}: not a field of a ${collection} row`;
  return null;
}

/** Throws StateImportError naming the first problem (see above). */
export function checkImportedState(collections: unknown, registry: CollectionRegistry): void {
  const problem = stateImportProblem(collections, registry);
  if (problem) throw new StateImportError(problem);
}
