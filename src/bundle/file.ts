import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { BUNDLE_FORMAT, BUNDLE_VERSION, BundleSchema, type Bundle } from './schema.ts';
import { GzipMembers } from './gzip-members.ts';

/**
 * A bundle on disk: gzip-compressed JSON (./schema.ts), written as gzip members one after the
 * other (RFC 1952, 2.2), each compressed on the thread pool as soon as its text is written
 * (./gzip-members.ts): gunzip, zlib and every gzip reader give back the one JSON text.
 */
const gunzipAsync = promisify(gunzip);

/** A bundle that cannot be read: the message is the one line the CLI prints. */
export class BundleError extends Error {
  override readonly name = 'BundleError';
}

export async function encodeBundle(bundle: Bundle): Promise<Buffer> {
  const { state, ...head } = bundle;
  const pieces = Object.entries(state.collections).map(([name, tables], i) => `${i > 0 ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(tables)}`);
  return Buffer.concat(await encodeParts(head, state.schemaVersion, pieces));
}

/**
 * The bundle's JSON, compressed a member at a time: `head` (every field but the state) first, then
 * the state's text as `pieces` gives it (./state-pieces.ts: each table built as it is asked for),
 * a member of about a megabyte compressed on the thread pool while the next is built, with a turn
 * of the event loop between two, so that a sandbox serving GET /__sandbox/bundle goes on answering.
 */
export async function encodeParts(head: Omit<Bundle, 'state'>, schemaVersion: number, pieces: Iterable<string>): Promise<Buffer[]> {
  const members = new GzipMembers();
  const text = JSON.stringify(head);
  members.write(`${text.slice(0, -1)},"state":{"schemaVersion":${schemaVersion},"collections":{`);
  for (const piece of pieces) if (members.write(piece)) await members.room();
  members.write('}}}');
  return members.end();
}

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

/**
 * Written whole or not at all: a job killed while writing leaves no half bundle under the name. Its
 * members are written one after the other as they are (./gzip-members.ts), not joined first.
 */
export async function writeBundleFile(file: string, bytes: Buffer | readonly Buffer[]): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  const handle = await open(partial, 'w');
  try {
    await handle.writev(Buffer.isBuffer(bytes) ? [bytes] : [...bytes]);
  } finally {
    await handle.close();
  }
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
