/**
 * Reading a file a person points the sandbox at (fixtures, scenarios, an
 * import, the --data file) only when it is a regular file, or a symlink to one,
 * under a size limit (docs/configuration.md "Files the
 * sandbox reads"). `readFile` on a named pipe waits for a writer forever,
 * holding one of libuv's four file-system threads: two of them and every
 * journal write queued behind them; a symlink to /dev/zero reads until memory
 * runs out. Here the file is opened with O_NONBLOCK (opening a FIFO then
 * returns at once), checked with fstat on the opened handle (what is read is
 * what was checked, whatever the name points at by then), and read at most
 * `maxBytes` (+1 to tell that it is over).
 */
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';

const MiB = 1024 * 1024;

/** The documented limits (docs/configuration.md). */
export const FILE_LIMITS = {
  /** a fixture or scenario file: hand-written JSON */
  source: 64 * MiB,
  /** `sandbox snapshot import`: the limit of the PUT /__sandbox/state body it is sent in */
  import: 256 * MiB,
  /** the --data database file: the longest string Node can hold is a little under 512 MiB */
  database: 512 * MiB - 64,
} as const;

/** The file is not a regular file, or is over its limit: `message` says which, without the path. */
export class FileRefusedError extends Error {
  override readonly name = 'FileRefusedError';
  constructor(
    readonly reason: 'not-regular' | 'too-large',
    message: string,
  ) {
    super(message);
  }
}

// O_NONBLOCK and O_NOCTTY do not exist on Windows (no FIFOs to block on there)
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
const CHUNK = 1024 * 1024;

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const formatMiB = (bytes: number) => (bytes < MiB ? `${bytes} bytes` : `${(bytes / MiB).toFixed(bytes < 10 * MiB ? 1 : 0)} MiB`);

/**
 * The bytes of `path` when it is a regular file (symlinks followed) of at most
 * `maxBytes`; otherwise a FileRefusedError. Errors of `open` itself (ENOENT,
 * EACCES, ...) are thrown as they are, so callers keep their messages for them.
 */
export async function readRegularFile(path: string, options: { maxBytes: number; onStats?: (stats: Stats) => void }): Promise<Buffer> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    options.onStats?.(stats);
    if (!stats.isFile()) {
      throw new FileRefusedError('not-regular', `it is ${kindOf(stats)}; the sandbox reads only regular files (or symlinks to one)`);
    }
    if (stats.size > options.maxBytes) throw tooLarge(stats.size, options.maxBytes);
    return await readAtMost(handle, options.maxBytes, stats.size);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `readRegularFile` decoded as UTF-8. */
export async function readRegularTextFile(path: string, options: { maxBytes: number }): Promise<string> {
  return (await readRegularFile(path, options)).toString('utf8');
}

const tooLarge = (size: number | null, maxBytes: number) =>
  new FileRefusedError(
    'too-large',
    `it is ${size === null ? 'larger than' : `${formatMiB(size)}, over`} the ${formatMiB(maxBytes)} limit for this kind of file`,
  );

/**
 * Reads to the end, but never more than `maxBytes`: one buffer of the size
 * fstat gave (no second copy of a large file), then, for a file that grew since
 * or reports no size (/proc), chunks until the end or the limit.
 */
async function readAtMost(handle: FileHandle, maxBytes: number, expected: number): Promise<Buffer> {
  const first = Buffer.allocUnsafe(expected + 1);
  let total = 0;
  while (total < first.length) {
    const { bytesRead } = await handle.read(first, total, first.length - total, null);
    if (bytesRead === 0) return first.subarray(0, total);
    total += bytesRead;
  }
  if (total > maxBytes) throw tooLarge(null, maxBytes);
  const chunks: Buffer[] = [first];
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes - total + 1));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > maxBytes) throw tooLarge(null, maxBytes);
    chunks.push(buffer.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks, total);
}
