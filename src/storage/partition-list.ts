/**
 * A partition's list() (rows in insertion order), cached until it changes.
 *
 * For a Map partition the list is held strongly and dropped on change: the next
 * list() is one Array.from (~5 ms at 100k rows). For a packed partition
 * (large-files/packed-rows.ts) building it inflates every page (~1.2 s at 100k bookings), and
 * holding it would keep as objects what packing saves; so it is held weakly, and
 * a change does not drop it: the ops are kept beside it, and the next list()
 * applies them to a copy (one pass, ~10 ms at 100k) as long as a GC has not
 * taken the list. GET /v1/bookings after a write at 100k then costs its sort,
 * not an inflate of every page (docs/storage.md, "Packed partitions").
 */
import { PackedRows, type RowMap } from './large-files/index.ts';
import type { Op, Row } from './types.ts';

/** The part of a partition (codec.ts) its list lives in. */
export interface ListedRows {
  rows: RowMap;
  /** cached list(), dropped on change; held weakly for a packed partition */
  list: readonly Row[] | WeakRef<readonly Row[]> | null;
  /** ops applied since a weakly held list was made, applied to it by the next list() */
  listOps: Op[] | null;
}

/** ops kept beside a weakly held list; past this, rebuilding is as cheap */
const MAX_PENDING_OPS = 10_000;

const DELETED: Row = Object.freeze({ id: '' });

export function partitionList(partition: ListedRows): readonly Row[] {
  const cached = partition.list instanceof WeakRef ? partition.list.deref() : partition.list;
  if (cached && partition.listOps === null) return cached;
  const list = Object.freeze(cached ? withOps(cached, partition.listOps!) : Array.from(partition.rows.values()));
  partition.list = partition.rows instanceof PackedRows ? new WeakRef(list) : list;
  partition.listOps = null;
  return list;
}

/** Called for each op applied to the partition. */
export function listChanged(partition: ListedRows, op: Op): void {
  if (!(partition.list instanceof WeakRef) || partition.list.deref() === undefined) {
    partition.list = null;
    partition.listOps = null;
    return;
  }
  (partition.listOps ??= []).push(op);
  if (partition.listOps.length > MAX_PENDING_OPS) {
    partition.list = null;
    partition.listOps = null;
  }
}

/** `list` with `ops` applied as a Map applies them: a put keeps an id's place, a new or re-created id goes last. */
function withOps(list: readonly Row[], ops: readonly Op[]): Row[] {
  const out = list.slice();
  let positions: Map<string, number> | null = null;
  let deleted = false;
  for (const op of ops) {
    positions ??= new Map(out.map((row, i) => [row.id, i]));
    const id = op.type === 'put' ? op.row.id : op.id;
    const at = positions.get(id);
    if (op.type === 'put') {
      if (at === undefined) positions.set(id, out.push(op.row) - 1);
      else out[at] = op.row;
    } else if (at !== undefined) {
      out[at] = DELETED;
      positions.delete(id);
      deleted = true;
    }
  }
  return deleted ? out.filter((row) => row !== DELETED) : out;
}
