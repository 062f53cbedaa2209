import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createGzip, gunzip } from 'node:zlib';
import { BUNDLE_FORMAT, BUNDLE_VERSION, BundleSchema, type Bundle } from './schema.ts';
import type { StateTable } from './state-table.ts';

/**
 * A bundle on disk: gzip-compressed JSON (./schema.ts). Compressed on the thread pool, a piece at
 * a time as the JSON is written (each collection of the state is one piece), so that on two cores
 * the compression runs beside the JSON instead of after it, and the control route that serves one
 * (GET /__sandbox/bundle) gives the event loop a turn between pieces.
 */
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
 * each collection of the state as `collections` gives it, a collection read while the one before
 * is compressed. Level 4 of gzip: 5% larger than the default level 6 and a third faster, for the
 * bound of one second that writing a bundle may add to `sandbox exec` (docs/benchmarks.md).
 */
export async function encodeParts(
  head: Omit<Bundle, 'state'>,
  schemaVersion: number,
  collections: Iterable<readonly [string, Record<string, StateTable>]>,
): Promise<Buffer> {
  const zip = createGzip({ level: 4 });
  const out: Buffer[] = [];
  zip.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    zip.on('end', resolve);
    zip.on('error', reject);
  });
  const text = JSON.stringify(head);
  zip.write(`${text.slice(0, -1)},"state":{"schemaVersion":${schemaVersion},"collections":{`);
  let first = true;
  for (const [name, tables] of collections) {
    zip.write(`${first ? '' : ','}${JSON.stringify(name)}:${JSON.stringify(tables)}`);
    first = false;
    await nextTurn(); // the gzip stream hands the piece to the thread pool; the next piece is written meanwhile
  }
  zip.end('}}}');
  await done;
  return Buffer.concat(out);
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
