/**
 * One workspace partition of a FieldIndex (field-index.ts): the ids filed under
 * each key. Kept apart because it is the index's memory, and shaped for it: an
 * index over 100k bookings files every row, so a key's ids cost as little as
 * the count of ids allows.
 */

/**
 * The ids filed under one key, in the order they were filed: a lone id as is
 * (most keys: codes, e-mails, slugs), a few as a small array (a booking's
 * passengers or items), more as a Set. A Set per key cost ~150 bytes, and a
 * second Map from id to key ~50 bytes per row: at 100k bookings the passenger
 * and item indexes were ~55 MiB (docs/storage.md "Memory per row").
 */
type Group = string | readonly string[] | Set<string>;
/** Past this many ids a key's group is a Set (O(1) add and delete). */
const SMALL_GROUP = 8;

export interface FiledIds {
  idsByKey: Map<string, Group>;
  /** ids filed, stale ones included */
  filed: number;
  /** `filed` when the partition was last checked against the store (FieldIndex's #checkStale) */
  checkedAt: number;
}

export function noFiledIds(): FiledIds {
  return { idsByKey: new Map(), filed: 0, checkedAt: 0 };
}

/** The ids filed under `key`, in the order they were filed (none: an empty list). */
export function idsUnder(partition: FiledIds, key: string): Iterable<string> {
  const group = partition.idsByKey.get(key);
  if (group === undefined) return [];
  return typeof group === 'string' ? [group] : group;
}

/** Files `id` under `key`; an id already filed there keeps its place. */
export function file(partition: FiledIds, key: string, id: string): void {
  const group = partition.idsByKey.get(key);
  let next: Group;
  if (group === undefined) next = id;
  else if (typeof group === 'string') {
    if (group === id) return;
    next = [group, id];
  } else if (group instanceof Set) {
    if (group.has(id)) return;
    group.add(id);
    partition.filed++;
    return;
  } else {
    if (group.includes(id)) return;
    next = group.length < SMALL_GROUP ? [...group, id] : new Set([...group, id]); // arrays of their exact length
  }
  partition.idsByKey.set(key, next);
  partition.filed++;
}

export function unfile(partition: FiledIds, key: string, id: string): void {
  const group = partition.idsByKey.get(key);
  if (group === undefined) return;
  if (typeof group === 'string') {
    if (group !== id) return;
    partition.idsByKey.delete(key);
  } else if (group instanceof Set) {
    if (!group.delete(id)) return;
    if (group.size === 0) partition.idsByKey.delete(key);
  } else {
    if (!group.includes(id)) return;
    const rest = group.filter((other) => other !== id);
    if (rest.length === 0) partition.idsByKey.delete(key);
    else partition.idsByKey.set(key, rest.length === 1 ? rest[0]! : rest);
  }
  partition.filed--;
}
