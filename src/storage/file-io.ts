/**
 * File-system helpers of the storage engine: fsync of files and directories,
 * errno checks, and the batch a group commit resolves together.
 */
import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { oneLine } from './codec.ts';

export interface Batch {
  /** journal lines, each ending in '\n' */
  lines: string[];
  commits: number;
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: Error) => void;
}

export function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { lines: [], commits: 0, promise, resolve, reject };
}

export interface FileBackend {
  path: string;
  journalPath: string;
  dir: string;
  fsync: boolean;
  compactAfter: number;
}

export const errorMessage = (err: unknown) => oneLine(err instanceof Error ? err.message : String(err));
export const isErrno = (err: unknown, code: string) =>
  typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;

/** Makes a rename/create in `dir` durable. Not supported everywhere (Windows): best effort. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // EISDIR/EPERM/EINVAL on platforms without directory fsync
  } finally {
    await handle?.close();
  }
}


/**
 * The lowdb adapter of the snapshot file, written for power loss
 * (docs/storage.md, "Write sequence"): write a temp file, fsync it, rename it
 * over the snapshot, fsync the directory. Without the first fsync a power cut
 * after the rename can leave the new name pointing at empty blocks; without
 * the second the rename itself can be undone while the journal has already
 * been truncated.
 */
export class DurableJsonFile<T> {
  readonly #temp: string;

  constructor(
    readonly path: string,
    private readonly codec: { parse: (text: string) => T; stringify: (data: T) => string },
    private readonly fsync: boolean,
  ) {
    this.#temp = join(dirname(path), `.${basename(path)}.tmp`);
  }

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
    return this.codec.parse(text);
  }

  async write(data: T): Promise<void> {
    const text = this.codec.stringify(data);
    const handle = await open(this.#temp, 'w');
    try {
      await handle.writeFile(text, 'utf8');
      if (this.fsync) await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(this.#temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    await rename(this.#temp, this.path);
    if (this.fsync) await fsyncDir(dirname(this.path));
  }
}
