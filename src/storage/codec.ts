/**
 * Ops and the in-memory state: validation, applying, capture for a snapshot.
 * The snapshot file's text is in snapshot-text.ts, the journal's in
 * journal-text.ts. Pure functions: no I/O here.
 */
import { isJsonData } from './given-rows.ts';
import { copyRows, isRawRows, packIfLarge, PackedRows, RowInterner, type RowMap } from './large-files/index.ts';
import { listChanged, type ListedRows } from './partition-list.ts';
import { InvalidOpError, SCHEMA_VERSION, type Collections, type DbSnapshot, type Op, type Row } from './types.ts';

export interface Partition extends ListedRows {
  /** a Map, or once large, PackedRows (large-files/packed-rows.ts) */
  rows: RowMap;
  /** seq of the last change to this partition */
  version: number;
  /**
   * Copy-on-write mark: the snapshot being written (generation n) holds `rows`;
   * the next change copies the rows first (copyRows), so the snapshot sees them unchanged.
   */
  sharedGen: number;
}

/** collection -> workspaceId -> partition */
export type State = Map<string, Map<string, Partition>>;

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** One line, no newlines, bounded length: for error messages. */
export const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export const errorText = (err: unknown): string => oneLine(err instanceof Error ? err.message : String(err));

/** Shape check shared by commit() and journal replay. Returns a problem or null. */
export function opProblem(op: unknown): string | null {
  if (!isPlainObject(op)) return 'is not an object';
  if (!isNonEmptyString(op.collection)) return 'has no collection';
  if (!isNonEmptyString(op.workspaceId)) return 'has no workspaceId';
  if (op.type === 'put') {
    if (!isPlainObject(op.row)) return 'has a row that is not an object';
    if (!isNonEmptyString(op.row.id)) return 'has a row without a string id';
    return null;
  }
  if (op.type === 'delete') return isNonEmptyString(op.id) ? null : 'has no id';
  return `has unknown type ${JSON.stringify(op.type)}`;
}

export interface PreparedCommit {
  /** normalised ops (rows are private JSON copies), frozen */
  ops: readonly Op[];
  /** the ops serialised for the journal, joined with commas (file mode only) */
  opsJson: string | null;
}

/**
 * Shared by every store of the process: ids and timestamps repeat across rows
 * (large-files/intern.ts), and so do small nested values such as `{}` and pricing lines
 * (large-files/shared-leaves.ts). Both tables are bounded (two generations each); their
 * sizes measured best at 20k seeded bookings: a larger table costs more than
 * its extra hits save (docs/storage.md "Memory per row").
 */
const rowValues = new RowInterner();

/**
 * Validates every op and turns rows into private, JSON-normalised copies (what
 * is in memory is exactly what will be on disk; the caller keeps no reference
 * into the store). Each row is serialised exactly once; in file mode that
 * string is reused for the journal line. Throws InvalidOpError; applies nothing.
 *
 * `intern(collection, workspaceId)` says whether a put's row is worth sharing
 * the strings and small values of (default: all). A row put into a packed
 * partition is not: it stays an object only until packing serialises it, a few
 * thousand puts later, and the walk was a tenth of a large seed's time and much
 * of its garbage (docs/storage.md "Memory per row").
 *
 * With `rowsGiven` (CommitOptions, given-rows.ts), a row that is already its
 * own JSON copy is kept as it is, and serialised only for the journal.
 */
export function prepareOps(
  ops: readonly Op[],
  wantJson: boolean,
  intern: (collection: string, workspaceId: string) => boolean = () => true,
  rowsGiven = false,
): PreparedCommit {
  if (!Array.isArray(ops)) throw new InvalidOpError('commit() expects an array of ops');
  const out: Op[] = new Array(ops.length);
  const parts: string[] | null = wantJson ? new Array(ops.length) : null;
  for (let i = 0; i < ops.length; i++) {
    const op: unknown = ops[i];
    const problem = opProblem(op);
    if (problem) throw new InvalidOpError(`ops[${i}] ${problem}`);
    const o = op as Op;
    if (o.type === 'put') {
      const kept = rowsGiven && isJsonData(o.row);
      let rowJson: string | undefined;
      if (!kept || parts) {
        try {
          rowJson = JSON.stringify(o.row);
        } catch (err) {
          throw new InvalidOpError(`ops[${i}].row is not JSON-serialisable: ${errorText(err)}`);
        }
      }
      const row: unknown = kept ? o.row : rowJson === undefined ? undefined : JSON.parse(rowJson);
      if (!isPlainObject(row) || !isNonEmptyString(row.id)) {
        throw new InvalidOpError(`ops[${i}].row does not serialise to a JSON object with a string id`);
      }
      if (intern(o.collection, o.workspaceId)) rowValues.internRow(row); // the copy (or the given row) is ours alone until applied
      out[i] = { type: 'put', collection: o.collection, workspaceId: o.workspaceId, row: row as Row };
      if (parts) {
        parts[i] = `{"type":"put","collection":${JSON.stringify(o.collection)},` + `"workspaceId":${JSON.stringify(o.workspaceId)},"row":${rowJson}}`;
      }
    } else {
      out[i] = { type: 'delete', collection: o.collection, workspaceId: o.workspaceId, id: o.id };
      if (parts) parts[i] = JSON.stringify(out[i]);
    }
  }
  return { ops: Object.freeze(out), opsJson: parts ? parts.join(',') : null };
}

function partitionOf(state: State, collection: string, workspaceId: string): Partition {
  let byWorkspace = state.get(collection);
  if (!byWorkspace) state.set(collection, (byWorkspace = new Map()));
  let partition = byWorkspace.get(workspaceId);
  if (!partition) byWorkspace.set(workspaceId, (partition = { rows: new Map(), version: 0, list: null, listOps: null, sharedGen: 0 }));
  return partition;
}

/**
 * Applies already-validated ops. Cannot fail. `writingGen` is the generation of
 * a snapshot being written (0: none); partitions it holds are copied before
 * their first change.
 */
export function applyOps(state: State, ops: readonly Op[], seq: number, writingGen = 0): void {
  const own = (partition: Partition) => {
    if (writingGen !== 0 && partition.sharedGen === writingGen) {
      partition.rows = copyRows(partition.rows);
      partition.sharedGen = 0;
    }
  };
  for (const op of ops) {
    if (op.type === 'put') {
      const partition = partitionOf(state, op.collection, op.workspaceId);
      own(partition);
      partition.rows.set(op.row.id, op.row); // an existing key keeps its position
      partition.rows = packIfLarge(op.collection, partition.rows, 'on-insert');
      partition.version = seq;
      listChanged(partition, op);
    } else {
      const partition = state.get(op.collection)?.get(op.workspaceId);
      if (partition) {
        own(partition);
        partition.rows.delete(op.id);
        partition.version = seq;
        listChanged(partition, op);
      }
    }
  }
}

/**
 * Builds in-memory state from a Collections object. Rows are taken by reference.
 * `describe` prefixes problems (e.g. the file name) and `makeError` chooses
 * the error class.
 */
export function stateFromCollections(collections: unknown, version: number, makeError: (problem: string) => Error): State {
  if (!isPlainObject(collections)) throw makeError('"collections" is not an object');
  const state: State = new Map();
  for (const [collection, byWorkspace] of Object.entries(collections)) {
    const partitions = partitionsFrom(collection, byWorkspace, version, makeError);
    if (partitions.size > 0) state.set(collection, partitions);
  }
  return state;
}

/** One collection's partitions (empty ones left out), validated; rows by reference. */
export function partitionsFrom(collection: string, byWorkspace: unknown, version: number, makeError: (problem: string) => Error): Map<string, Partition> {
  if (!isPlainObject(byWorkspace)) throw makeError(`collections[${JSON.stringify(collection)}] is not an object`);
  const partitions = new Map<string, Partition>();
  for (const [workspaceId, rows] of Object.entries(byWorkspace)) {
    if (isRawRows(rows)) {
      // a large partition of a file the sandbox wrote: its rows are packed from the file's bytes, not parsed (large-files/snapshot-scan.ts)
      partitions.set(workspaceId, { rows: PackedRows.fromRaw(rows), version, list: null, listOps: null, sharedGen: 0 });
      continue;
    }
    const where = `collections[${JSON.stringify(collection)}][${JSON.stringify(workspaceId)}]`;
    if (!isPlainObject(rows)) throw makeError(`${where} is not an object`);
    const map = new Map<string, Row>();
    for (const [id, row] of Object.entries(rows)) {
      if (!isPlainObject(row)) throw makeError(`${where}[${JSON.stringify(id)}] is not an object`);
      if (row.id !== id) {
        throw makeError(`${where}[${JSON.stringify(id)}] has id ${JSON.stringify(row.id)} (must equal its key)`);
      }
      map.set(row.id as string, row as Row); // the row's own string: the key of a parsed file is another copy
    }
    if (map.size > 0) partitions.set(workspaceId, { rows: packIfLarge(collection, map, 'background'), version, list: null, listOps: null, sharedGen: 0 });
  }
  return partitions;
}

/** State -> Collections (rows by reference; empty partitions are left out). */
export function collectionsFromState(state: State): Collections {
  // Object.fromEntries defines own properties, so ids like "__proto__" are safe.
  const collections: [string, Record<string, Record<string, Row>>][] = [];
  for (const [collection, byWorkspace] of state) {
    const partitions: [string, Record<string, Row>][] = [];
    for (const [workspaceId, partition] of byWorkspace) {
      if (partition.rows.size > 0) partitions.push([workspaceId, Object.fromEntries(partition.rows)]);
    }
    if (partitions.length > 0) collections.push([collection, Object.fromEntries(partitions)]);
  }
  return Object.fromEntries(collections);
}

/** The partitions of a state, by reference, in order (empty ones left out). */
export type CapturedState = [collection: string, partitions: [workspaceId: string, rows: RowMap][]][];

/**
 * Captures the state for a snapshot in O(partitions), not O(rows): each
 * partition is marked as shared with generation `gen`, and applyOps copies a
 * marked partition before changing it. Rows themselves are never mutated.
 */
export function captureState(state: State, gen: number): CapturedState {
  const out: CapturedState = [];
  for (const [collection, byWorkspace] of state) {
    const partitions: [string, RowMap][] = [];
    for (const [workspaceId, partition] of byWorkspace) {
      if (partition.rows.size === 0) continue;
      partition.sharedGen = gen;
      partitions.push([workspaceId, partition.rows]);
    }
    if (partitions.length > 0) out.push([collection, partitions]);
  }
  return out;
}

export const emptySnapshot = (): DbSnapshot => ({ schemaVersion: SCHEMA_VERSION, seq: 0, collections: {} });
