/**
 * The snapshot file's text: written in pieces (so a large database never holds
 * the event loop in one go) and read back with one-line errors naming the file.
 * Pure functions: no I/O here.
 */
import { errorText, isPlainObject, oneLine, type CapturedState } from './codec.ts';
import { PackedRows, scanSnapshot } from './large-files/index.ts';
import { SCHEMA_VERSION, StoreError, type Collections, type DbSnapshot } from './types.ts';

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
      if (rows instanceof PackedRows) {
        // packed rows are copied from their pages' text, not parsed and serialised again
        for (const members of rows.jsonMembers()) {
          yield `${first ? '' : ','}${members}`;
          first = false;
        }
      } else {
        for (const [id, row] of rows) {
          yield `${first ? '' : ','}${JSON.stringify(id)}:${JSON.stringify(row)}`;
          first = false;
        }
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
  return checkedSnapshot(data, file);
}

/**
 * The bytes of a snapshot file: scanned when the sandbox wrote them, so that the rows of its
 * large partitions are not parsed at open (large-files/snapshot-scan.ts), else parsed as text.
 */
export function parseSnapshotBytes(bytes: Buffer, file: string): DbSnapshot {
  const scanned = scanSnapshot(bytes);
  return scanned ? checkedSnapshot(scanned, file) : parseSnapshotText(bytes.toString('utf8'), file);
}

/** The top-level checks of a parsed (or scanned) snapshot file, with one-line errors naming it. */
function checkedSnapshot(data: unknown, file: string): DbSnapshot {
  const fail = (problem: string) => new StoreError(`Cannot open database ${file}: ${problem}`);
  const foreign = (why: string) => fail(`not a travel-commerce-sandbox database (${why})`);
  if (!isPlainObject(data)) throw foreign('top-level value is not an object');
  if (!('schemaVersion' in data)) throw foreign('no "schemaVersion" field');
  if (!('collections' in data)) throw foreign('no "collections" field');
  const { schemaVersion, seq = 0, collections } = data;
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw foreign(`"schemaVersion" is ${oneLine(JSON.stringify(schemaVersion) ?? String(schemaVersion), 60)}`);
  }
  if (schemaVersion > SCHEMA_VERSION) {
    throw fail(`it was written by a newer version of the sandbox (schemaVersion ${schemaVersion}, this version reads up to ${SCHEMA_VERSION})`);
  }
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw fail(`"seq" is ${oneLine(JSON.stringify(seq) ?? String(seq), 60)}, expected a non-negative integer`);
  }
  if (!isPlainObject(collections)) throw foreign('"collections" is not an object');
  return { schemaVersion, seq, collections: collections as Collections };
}
