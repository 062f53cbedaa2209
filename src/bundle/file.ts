import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { gunzip, gzip } from 'node:zlib';
import { BUNDLE_FORMAT, BUNDLE_VERSION, BundleSchema, type Bundle } from './schema.ts';
import type { StateTable } from './state-table.ts';

/**
 * A bundle on disk: gzip-compressed JSON (./schema.ts), written as gzip "members" one after the
 * other (RFC 1952, 2.2: a gzip file is a series of members), one for each collection of the state
 * and one for the rest. Each is compressed on the thread pool as soon as its JSON is written, so
 * that the members compress side by side, and beside the JSON of the next; gunzip, zlib and every
 * gzip reader give back the one JSON text. The control route that serves a bundle (GET
 * /__sandbox/bundle) gives the event loop a turn between collections.
 */
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** A bundle that cannot be read: the message is the one line the CLI prints. */
export class BundleError extends Error {
  override readonly name = 'BundleError';
}

export function encodeBundle(bundle: Bundle): Promise<Buffer> {
  const { state, ...head } = bundle;
  return encodeParts(head, state.schemaVersion, Object.entries(state.collections));
}

/**
 * The bundle's JSON, compressed a piece at a time: `head` (every field but the state) first, then
 * each collection of the state as `collections` gives it, a collection read while the ones before
 * are compressed, for the bound of one second that writing a bundle may add to `sandbox exec`.
 */
export async function encodeParts(
  head: Omit<Bundle, 'state'>,
  schemaVersion: number,
  collections: Iterable<readonly [string, Record<string, StateTable>]>,
): Promise<Buffer> {
  const members: Promise<Buffer>[] = [];
  const text = JSON.stringify(head);
  let piece = `${text.slice(0, -1)},"state":{"schemaVersion":${schemaVersion},"collections":{`;
  let first = true;
  for (const [name, tables] of collections) {
    piece += `${first ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(tables)}`;
    first = false;
    // small collections share a member: each member costs its header and a fresh dictionary
    if (piece.length < MEMBER_BYTES) continue;
    members.push(gzipAsync(piece, { level: GZIP_LEVEL }));
    piece = '';
    await nextTurn();
  }
  members.push(gzipAsync(`${piece}}}}`, { level: GZIP_LEVEL }));
  return Buffer.concat(await Promise.all(members));
}

/** gzip's level 4: 5% larger than its default 6, and a third faster (docs/benchmarks.md, "The failure bundle") */
const GZIP_LEVEL = 4;
/** a member holds at least this much JSON, collections joined until it does */
const MEMBER_BYTES = 256 * 1024;

/**
 * The bundle in `bytes`, checked: gzip or, for a person who unpacked it to read it, plain JSON.
 * `source` names it in the error (a file name).
 */
export async function decodeBundle(bytes: Buffer, source: string): Promise<Bundle> {
  const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
  let parsed: unknown;
  try {
    parsed = JSON.parse((gzipped ? await gunzipAsync(bytes) : bytes).toString('utf8'));
  } catch (err) {
    throw new BundleError(
      `${source} is not a sandbox bundle: ${gzipped ? 'its gzip or JSON is damaged' : 'neither gzip nor JSON'} (${(err as Error).message})`,
    );
  }
  const head = parsed as { format?: unknown; bundleVersion?: unknown } | null;
  if (typeof head !== 'object' || head === null || head.format !== BUNDLE_FORMAT)
    throw new BundleError(`${source} is not a sandbox bundle: it has no "format": "${BUNDLE_FORMAT}" (write one with sandbox exec --bundle <file>)`);
  if (typeof head.bundleVersion === 'number' && head.bundleVersion > BUNDLE_VERSION)
    throw new BundleError(
      `${source} is a bundle of version ${head.bundleVersion}; this sandbox reads up to version ${BUNDLE_VERSION}: open it with the version that wrote it (npx travel-commerce-sandbox@latest open ${source})`,
    );
  const checked = BundleSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new BundleError(`${source} is not a valid sandbox bundle: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  return checked.data;
}

/** Written whole or not at all: a job killed while writing leaves no half bundle under the name. */
export async function writeBundleFile(file: string, bytes: Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
}

export async function readBundleFile(file: string): Promise<Bundle> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new BundleError(`cannot read the bundle ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  return decodeBundle(bytes, file);
}
