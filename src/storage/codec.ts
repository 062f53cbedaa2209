/**
 * Validation and (de)serialisation of ops, snapshots and journal lines.
 * Pure functions: no I/O here.
 */
import {
  InvalidOpError,
  SCHEMA_VERSION,
  StoreError,
  type Collections,
  type DbSnapshot,
  type Op,
  type Row,
} from './types.ts';

export interface Partition {
  rows: Map<string, Row>;
  /** seq of the last change to this partition */
  version: number;
  /** cached list(), dropped on change */
  list: readonly Row[] | null;
  /**
   * Copy-on-write mark: the snapshot being written (generation n) holds `rows`;
   * the next change copies the Map first, so the snapshot sees it unchanged.
   */
  sharedGen: number;
}

/** collection -> workspaceId -> partition */
export type State = Map<string, Map<string, Partition>>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isNonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** One line, no newlines, bounded length: for error messages. */
export const oneLine = (text: string, max = 300): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

const errorText = (err: unknown): string => oneLine(err instanceof Error ? err.message : String(err));

/** Shape check shared by commit() and journal replay. Returns a problem or null. */
function opProblem(op: unknown): string | null {
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
 * Validates every op and turns rows into private, JSON-normalised copies (what
 * is in memory is exactly what will be on disk; the caller keeps no reference
 * into the store). Each row is serialised exactly once; in file mode that
 * string is reused for the journal line. Throws InvalidOpError; applies nothing.
 */
export function prepareOps(ops: readonly Op[], wantJson: boolean): PreparedCommit {
  if (!Array.isArray(ops)) throw new InvalidOpError('commit() expects an array of ops');
  const out: Op[] = new Array(ops.length);
  const parts: string[] | null = wantJson ? new Array(ops.length) : null;
  for (let i = 0; i < ops.length; i++) {
    const op: unknown = ops[i];
    const problem = opProblem(op);
    if (problem) throw new InvalidOpError(`ops[${i}] ${problem}`);
    const o = op as Op;
    if (o.type === 'put') {
      let rowJson: string | undefined;
      try {
        rowJson = JSON.stringify(o.row);
      } catch (err) {
        throw new InvalidOpError(`ops[${i}].row is not JSON-serialisable: ${errorText(err)}`);
      }
      const row: unknown = rowJson === undefined ? undefined : JSON.parse(rowJson);
      if (!isPlainObject(row) || !isNonEmptyString(row.id)) {
        throw new InvalidOpError(`ops[${i}].row does not serialise to a JSON object with a string id`);
      }
      out[i] = { type: 'put', collection: o.collection, workspaceId: o.workspaceId, row: row as Row };
      if (parts) {
        parts[i] =
          `{"type":"put","collection":${JSON.stringify(o.collection)},` +
          `"workspaceId":${JSON.stringify(o.workspaceId)},"row":${rowJson}}`;
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
  if (!partition) byWorkspace.set(workspaceId, (partition = { rows: new Map(), version: 0, list: null, sharedGen: 0 }));
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
      partition.rows = new Map(partition.rows);
      partition.sharedGen = 0;
    }
  };
  for (const op of ops) {
    if (op.type === 'put') {
      const partition = partitionOf(state, op.collection, op.workspaceId);
      own(partition);
      partition.rows.set(op.row.id, op.row); // an existing key keeps its position
      partition.version = seq;
      partition.list = null;
    } else {
      const partition = state.get(op.collection)?.get(op.workspaceId);
      if (partition) {
        own(partition);
        partition.rows.delete(op.id);
        partition.version = seq;
        partition.list = null;
      }
    }
  }
}

/**
 * Builds in-memory state from a Collections object. Rows are taken by reference.
 * `describe` prefixes problems (e.g. the file name) and `makeError` chooses
 * the error class.
 */
export function stateFromCollections(
  collections: unknown,
  version: number,
  makeError: (problem: string) => Error,
): State {
  if (!isPlainObject(collections)) throw makeError('"collections" is not an object');
  const state: State = new Map();
  for (const [collection, byWorkspace] of Object.entries(collections)) {
    if (!isPlainObject(byWorkspace)) throw makeError(`collections[${JSON.stringify(collection)}] is not an object`);
    const partitions = new Map<string, Partition>();
    for (const [workspaceId, rows] of Object.entries(byWorkspace)) {
      const where = `collections[${JSON.stringify(collection)}][${JSON.stringify(workspaceId)}]`;
      if (!isPlainObject(rows)) throw makeError(`${where} is not an object`);
      const map = new Map<string, Row>();
      for (const [id, row] of Object.entries(rows)) {
        if (!isPlainObject(row)) throw makeError(`${where}[${JSON.stringify(id)}] is not an object`);
        if (row.id !== id) {
          throw makeError(`${where}[${JSON.stringify(id)}] has id ${JSON.stringify(row.id)} (must equal its key)`);
        }
        map.set(id, row as Row);
      }
      if (map.size > 0) partitions.set(workspaceId, { rows: map, version, list: null, sharedGen: 0 });
    }
    if (partitions.size > 0) state.set(collection, partitions);
  }
  return state;
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
export type CapturedState = [collection: string, partitions: [workspaceId: string, rows: Map<string, Row>][]][];

/**
 * Captures the state for a snapshot in O(partitions), not O(rows): each
 * partition is marked as shared with generation `gen`, and applyOps copies a
 * marked partition before changing it. Rows themselves are never mutated.
 */
export function captureState(state: State, gen: number): CapturedState {
  const out: CapturedState = [];
  for (const [collection, byWorkspace] of state) {
    const partitions: [string, Map<string, Row>][] = [];
    for (const [workspaceId, partition] of byWorkspace) {
      if (partition.rows.size === 0) continue;
      partition.sharedGen = gen;
      partitions.push([workspaceId, partition.rows]);
    }
    if (partitions.length > 0) out.push([collection, partitions]);
  }
  return out;
}

/** snapshotChunks() of a captured state: the same text as JSON.stringify of its snapshot. */
export function* capturedChunks(captured: CapturedState, seq: number): Generator<string> {
  yield `{"schemaVersion":${SCHEMA_VERSION},"seq":${seq},"collections":{`;
  for (let c = 0; c < captured.length; c++) {
    const [collection, partitions] = captured[c]!;
    yield `${c === 0 ? '' : ','}${JSON.stringify(collection)}:{`;
    for (let p = 0; p < partitions.length; p++) {
      const [workspaceId, rows] = partitions[p]!;
      yield `${p === 0 ? '' : ','}${JSON.stringify(workspaceId)}:{`;
      let first = true;
      for (const [id, row] of rows) {
        yield `${first ? '' : ','}${JSON.stringify(id)}:${JSON.stringify(row)}`;
        first = false;
      }
      yield '}';
    }
    yield '}';
  }
  yield '}}';
}

/**
 * The snapshot's JSON text in pieces (one per row, plus the structure around
 * them), byte-for-byte what JSON.stringify(snapshot) gives. The writer turns
 * the pieces into bounded slices of work, so serialising 100k records never
 * holds the event loop in one go (docs/storage.md, "No pause at scale").
 */
export function* snapshotChunks(snapshot: DbSnapshot): Generator<string> {
  yield `{"schemaVersion":${JSON.stringify(snapshot.schemaVersion)},"seq":${JSON.stringify(snapshot.seq)},"collections":{`;
  let firstCollection = true;
  for (const [collection, byWorkspace] of Object.entries(snapshot.collections)) {
    yield `${firstCollection ? '' : ','}${JSON.stringify(collection)}:{`;
    firstCollection = false;
    let firstWorkspace = true;
    for (const [workspaceId, rows] of Object.entries(byWorkspace)) {
      yield `${firstWorkspace ? '' : ','}${JSON.stringify(workspaceId)}:{`;
      firstWorkspace = false;
      let firstRow = true;
      for (const [id, row] of Object.entries(rows)) {
        const json = JSON.stringify(row);
        if (json === undefined) continue; // as JSON.stringify drops it
        yield `${firstRow ? '' : ','}${JSON.stringify(id)}:${json}`;
        firstRow = false;
      }
      yield '}';
    }
    yield '}';
  }
  yield '}}';
}

export const emptySnapshot = (): DbSnapshot => ({ schemaVersion: SCHEMA_VERSION, seq: 0, collections: {} });

/**
 * Parses the text of a snapshot file. Every problem becomes a one-line
 * StoreError naming the file. Rows are validated later by stateFromCollections.
 */
export function parseSnapshotText(text: string, file: string): DbSnapshot {
  const fail = (problem: string) => new StoreError(`Cannot open database ${file}: ${problem}`);
  if (text.length === 0) throw fail('the file is empty (0 bytes); delete it to start over');
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (err) {
    throw fail(`the file is not valid JSON (${errorText(err)})`);
  }
  const foreign = (why: string) => fail(`not a travel-commerce-sandbox database (${why})`);
  if (!isPlainObject(data)) throw foreign('top-level value is not an object');
  if (!('schemaVersion' in data)) throw foreign('no "schemaVersion" field');
  if (!('collections' in data)) throw foreign('no "collections" field');
  const { schemaVersion, seq = 0, collections } = data;
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw foreign(`"schemaVersion" is ${oneLine(JSON.stringify(schemaVersion) ?? String(schemaVersion), 60)}`);
  }
  if (schemaVersion > SCHEMA_VERSION) {
    throw fail(
      `it was written by a newer version of the sandbox (schemaVersion ${schemaVersion}, this version reads up to ${SCHEMA_VERSION})`,
    );
  }
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw fail(`"seq" is ${oneLine(JSON.stringify(seq) ?? String(seq), 60)}, expected a non-negative integer`);
  }
  if (!isPlainObject(collections)) throw foreign('"collections" is not an object');
  return { schemaVersion, seq, collections: collections as Collections };
}

export interface JournalEntry {
  seq: number;
  ops: Op[];
}

export interface ParsedJournal {
  /** entries with seq > snapshot seq, in order, consecutive */
  entries: JournalEntry[];
  /** a final line that was cut short (never acknowledged) was dropped */
  tornTail: boolean;
}

/**
 * Parses journal text. Only a final line without its newline is a torn write:
 * it was never acknowledged (a commit is acknowledged after its whole line,
 * newline included, is on disk), so it is dropped. A complete line that does
 * not parse was acknowledged once; it is corruption, wherever it stands. Entries already in the snapshot (seq <= baseSeq)
 * are skipped; the rest must continue the snapshot's seq without gaps.
 */
export function parseJournal(text: string, file: string, baseSeq: number): ParsedJournal {
  const entries: JournalEntry[] = [];
  if (text.length === 0) return { entries, tornTail: false };
  const lines = text.split('\n');
  // text ends with '\n' -> last element is '' ; otherwise it is a torn fragment
  const tornTail = lines[lines.length - 1] !== '';
  lines.pop();
  let expected = baseSeq + 1;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const fail = (problem: string) =>
      new StoreError(`Cannot open database: journal ${file} is corrupt at line ${lineNo}: ${problem}`);
    const line = lines[i]!;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (err) {
      throw fail(`not valid JSON (${errorText(err)})`);
    }
    if (!isPlainObject(entry) || !Number.isSafeInteger(entry.seq) || !Array.isArray(entry.ops)) {
      throw fail('not a journal entry ({"seq":n,"ops":[...]})');
    }
    const seq = entry.seq as number;
    if (seq <= baseSeq) {
      if (entries.length > 0) throw fail(`seq ${seq} goes backwards`);
      continue; // already contained in the snapshot (compaction was interrupted)
    }
    if (seq !== expected) {
      throw fail(
        entries.length === 0
          ? `journal continues at seq ${seq} but the snapshot is at seq ${baseSeq}; the journal does not belong to this snapshot`
          : `expected seq ${expected}, found ${seq}`,
      );
    }
    for (let j = 0; j < entry.ops.length; j++) {
      const problem = opProblem(entry.ops[j]);
      if (problem) throw fail(`op ${j} ${problem}`);
    }
    entries.push({ seq, ops: entry.ops as Op[] });
    expected++;
  }
  return { entries, tornTail };
}
