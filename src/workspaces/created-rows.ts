import { API_KEYS, WORKSPACES } from '../core/tenancy.ts';
import { basePartition, GLOBAL_PARTITION, OVERLAYS, type Collections, type Row, type Store } from '../storage/index.ts';
import { BASES } from './templates.ts';

/**
 * A global reset keeps created workspaces, their keys and their templates,
 * so a worker's credentials survive another worker's reset; their data is
 * back to the template like everyone else's. These are the rows to add to
 * the fixtures' database for that (storage/deferred.ts `withRows`), read from
 * the engine under the overlay (`inner`), where the bases' own partitions are.
 */
export function createdRows(inner: Store, collectionNames: Iterable<string>): Collections {
  const created: Collections = {};
  const overlays = OVERLAYS.in(inner).list(GLOBAL_PARTITION);
  if (overlays.length === 0) return created;
  // dictionary-mode objects: a literal given a thousand new keys builds a hidden class per key
  const add = (collection: string, workspaceId: string, row: Row) => {
    ((created[collection] ??= {})[workspaceId] ??= Object.create(null) as Record<string, Row>)[row.id] = row;
  };
  const ids = new Set(overlays.map((o) => o.id));
  const bases = new Set(overlays.map((o) => o.baseId));
  for (const overlay of overlays) add(OVERLAYS.name, GLOBAL_PARTITION, overlay);
  for (const baseId of bases) {
    const meta = inner.get(BASES.name, GLOBAL_PARTITION, baseId);
    if (meta) add(BASES.name, GLOBAL_PARTITION, meta);
    for (const collection of collectionNames) for (const row of inner.list(collection, basePartition(baseId))) add(collection, basePartition(baseId), row);
  }
  for (const w of WORKSPACES.in(inner).list(GLOBAL_PARTITION)) if (ids.has(w.id)) add(WORKSPACES.name, GLOBAL_PARTITION, w);
  for (const k of API_KEYS.in(inner).list(GLOBAL_PARTITION)) if (ids.has(k.workspaceId)) add(API_KEYS.name, GLOBAL_PARTITION, k);
  return created;
}
