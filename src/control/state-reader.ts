import { setImmediate as nextTurn } from 'node:timers/promises';
import { badRequest, validationError } from '../core/errors.ts';
import { MAX_STATE_DEPTH, tooDeepMessage, tooDeepPath } from '../core/json-depth.ts';
import { emptyBodyError, protoKeyPath } from '../http/json-body.ts';
import {
  BASE_PREFIX,
  GLOBAL_PARTITION,
  OVERLAYS,
  SCHEMA_VERSION,
  type CollectionRegistry,
  type Collections,
  type DeferredCollections,
  type Row,
} from '../storage/index.ts';
import { JsonCursor, malformed } from './json-cursor.ts';
import { clip, importedCollection, isTombstoneRow, quote, rowProblem } from './state-import.ts';

/**
 * The body of `PUT /__sandbox/state`, read and checked a row at a time: a
 * 243 MB body parsed in one JSON.parse and checked in one go took 18 s and
 * held `/v1` for up to 6.9 s. Here the body stays
 * bytes; each row is found (json-cursor.ts), parsed from its own slice and
 * checked by the rules of a whole-state import (state-import.ts), and every few milliseconds the walk
 * gives the event loop a turn, so other requests are answered during it.
 *
 * The answer is the same as a whole-body parse: the first problem refused in
 * one line, nothing replaced. Two differences of order, neither of what is
 * refused: a tombstone row (`{id, "~deleted": true}`) is judged once the
 * created workspaces are known, at the end; `schemaVersion` is checked where
 * it stands.
 */

/**
 * How long one slice of the walk may hold the event loop, and rows per slice at most whatever
 * the clock says (a large import gives way at least every so many rows). `slices` counts the
 * turns given so far, all imports together: tests wait for it to know an import is under way,
 * and set `rows` low to have many slices from a small state.
 */
export const importSlicing = { ms: 8, rows: 2_000, slices: 0 };

/** Rows sit four levels into the body ({collections: {name: {workspace: {id: row}}}}). */
const ROW_DEPTH = MAX_STATE_DEPTH - 4;

export interface ReadState {
  schemaVersion: number;
  /** the rows, as dictionaries: a literal given a hundred thousand new keys builds a hidden class per key */
  collections: Collections;
}

const dictionary = <T>() => Object.create(null) as Record<string, T>;
const refused = (message: string) => validationError([message]);
/** The refusal of a value that is not the object it should be; one that is not even JSON is refused as such first, as a whole-body parse would. */
function notAnObject(cursor: JsonCursor, message: string) {
  cursor.value();
  return refused(message);
}

export async function readStateBody(body: Buffer | undefined, registry: CollectionRegistry): Promise<ReadState> {
  if (!body) throw emptyBodyError();
  const cursor = new JsonCursor(body);
  if (cursor.atEnd()) throw emptyBodyError();
  if (!cursor.openObject()) throw notAnObject(cursor, 'body: expected an object with schemaVersion and collections');
  let schemaVersion: number | undefined;
  let collections: Collections | undefined;
  for (let first = true; cursor.nextMember(first); first = false) {
    const key = cursor.key();
    if (key === 'collections') collections = await readCollections(cursor, registry);
    else if (key === 'schemaVersion') schemaVersion = checkVersion(cursor.value());
    else cursor.value(); // seq, and any other key: parsed (it must be JSON), not kept
  }
  if (!cursor.atEnd()) throw malformed('more than one JSON value', cursor.at);
  if (schemaVersion === undefined) throw refused('body.schemaVersion: expected an integer (the schemaVersion of an export)');
  if (!collections) throw refused('body.collections: expected an object of collections');
  return { schemaVersion, collections };
}

function checkVersion(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw refused('body.schemaVersion: expected an integer (the schemaVersion of an export)');
  if (value > SCHEMA_VERSION) throw badRequest('CONTROL_INVALID', `This state has schemaVersion ${value}; this sandbox reads up to ${SCHEMA_VERSION}`);
  return value;
}

/** a tombstone row, judged at the end: only a created workspace's own partition may hold one */
interface Tombstone {
  collection: string;
  workspaceId: string;
  key: string;
  row: Row;
}

async function readCollections(cursor: JsonCursor, registry: CollectionRegistry): Promise<Collections> {
  if (!cursor.openObject()) throw notAnObject(cursor, 'body.collections: expected an object of collections');
  const collections: Collections = dictionary();
  const tombstones: Tombstone[] = [];
  let sliceEnds = performance.now() + importSlicing.ms;
  let rowsLeft = importSlicing.rows;
  for (let firstCollection = true; cursor.nextMember(firstCollection); firstCollection = false) {
    const name = cursor.key();
    refuseProtoKey(name, 'body.collections');
    const collection = importedCollection(name, registry);
    if (typeof collection === 'string') throw refused(collection);
    if (!cursor.openObject()) throw notAnObject(cursor, `collection ${clip(name)}: not an object of workspaces`);
    // a key given twice: the last one wins, as in JSON.parse
    const partitions = (collections[name] = dictionary<Record<string, Row>>());
    for (let firstWorkspace = true; cursor.nextMember(firstWorkspace); firstWorkspace = false) {
      const workspaceId = cursor.key();
      refuseProtoKey(workspaceId, `body.collections.${name}`);
      if (!cursor.openObject()) throw notAnObject(cursor, `collection ${name}, workspace ${clip(workspaceId)}: not an object of rows by id`);
      const rows = (partitions[workspaceId] = dictionary<Row>());
      for (let firstRow = true; cursor.nextMember(firstRow); firstRow = false) {
        const key = cursor.key();
        refuseProtoKey(key, `body.collections.${name}.${workspaceId}`);
        cursor.peek();
        const [start, end] = cursor.skipValue();
        const row = cursor.parse(start, end);
        refuseTooDeepOrProto(row, name, workspaceId, key, cursor.bytes, start, end);
        if (isTombstoneRow(key, row)) tombstones.push({ collection: name, workspaceId, key, row: row as Row });
        else {
          const problem = rowProblem(collection.schema, name, key, row);
          if (problem) throw refused(`${name} row ${quote(key)} (workspace ${clip(workspaceId)}): ${problem}`);
        }
        rows[key] = row as Row;
        if (--rowsLeft === 0 || performance.now() >= sliceEnds) {
          importSlicing.slices++;
          await nextTurn(); // the event loop's turn: /v1 requests, timers, the rest of other bodies
          sliceEnds = performance.now() + importSlicing.ms;
          rowsLeft = importSlicing.rows;
        }
      }
    }
  }
  checkTombstones(tombstones, collections, registry);
  return collections;
}

/** A tombstone stands only in a created workspace's own partition (not a template's `~base:` one). */
function checkTombstones(tombstones: readonly Tombstone[], collections: Collections, registry: CollectionRegistry): void {
  if (tombstones.length === 0) return;
  const created = new Set(Object.keys(collections[OVERLAYS.name]?.[GLOBAL_PARTITION] ?? {}));
  for (const { collection, workspaceId, key, row } of tombstones) {
    if (created.has(workspaceId) && !workspaceId.startsWith(BASE_PREFIX)) continue;
    const schema = (importedCollection(collection, registry) as { schema: Parameters<typeof rowProblem>[0] }).schema;
    const problem = rowProblem(schema, collection, key, row) ?? 'a deleted-row marker stands only in a created workspace';
    throw refused(`${collection} row ${quote(key)} (workspace ${clip(workspaceId)}): ${problem}`);
  }
}

const PROTO_REFUSAL =
  'the key "__proto__" is refused: JavaScript reserves it for an object\'s prototype, so the sandbox cannot store it as data; rename the key';

function refuseProtoKey(key: string, path: string): void {
  if (key === '__proto__') throw refused(`${path}.__proto__: ${PROTO_REFUSAL}`);
}

/** What the body parser refused before any route saw the body: nesting past 128 levels, a `__proto__` key (http/json-body.ts). */
function refuseTooDeepOrProto(row: unknown, name: string, workspaceId: string, key: string, bytes: Buffer, start: number, end: number): void {
  // the path as a whole-body check names it: body.collections.<name>.<workspace>.<id>...
  const inBody = () => ({ collections: { [name]: { [workspaceId]: { [key]: row } } } });
  if (tooDeepPath(row, ROW_DEPTH, '') !== null) throw refused(tooDeepMessage(tooDeepPath(inBody(), MAX_STATE_DEPTH, 'body')!, MAX_STATE_DEPTH));
  // the key can only appear spelled out or escaped (\u005f...)
  const text = bytes.subarray(start, end);
  if (text.includes('__proto__') || text.includes('\\u')) {
    const where = protoKeyPath(inBody());
    if (where) throw refused(`${where}: ${PROTO_REFUSAL}`);
  }
}

/**
 * The checked rows for the store, deferred: each collection's Maps are built when it is first
 * read (storage/lazy-state.ts), as at start, not all in the tick of the import's answer (~500 ms
 * for 220k bookings). Each collection is handed over once, and then forgotten here, so that the
 * store holds the only reference to its rows; every row was checked, so its loading cannot fail.
 */
export function handedOver(collections: Collections): DeferredCollections {
  return {
    kind: 'deferred',
    names: Object.keys(collections),
    load(name) {
      const partitions = collections[name] ?? {};
      delete collections[name];
      return partitions;
    },
  };
}
