/**
 * File-system helpers of the storage engine: fsync of files and directories,
 * errno checks, and the batch a group commit resolves together.
 */
import { open, type FileHandle } from 'node:fs/promises';
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

export async function fsyncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

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

