/**
 * File-system helpers of the storage engine: fsync of files and directories,
 * errno checks, text written in slices, and the batch a group commit resolves
 * together.
 */
import type { Hash } from 'node:crypto';
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

export const errorMessage = (err: unknown) => oneLine(err instanceof Error ? err.message : String(err));
export const isErrno = (err: unknown, code: string) => typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;

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

/** Work done between two returns to the event loop while serialising (docs/storage.md). */
export const SLICE_MS = 4;
const SLICE_BYTES = 256 * 1024;

/**
 * Serialises in slices of at most SLICE_MS (or 256 KiB) and writes each slice
 * before the next: the awaited write gives the event loop back, so requests
 * keep being served while 100k records are written.
 */
export async function writeSliced(handle: FileHandle, chunks: Iterable<string>, hash: Hash | null): Promise<void> {
  let parts: string[] = [];
  let size = 0;
  let sliceStart = performance.now();
  const flush = async () => {
    const buffer = Buffer.from(parts.join(''), 'utf8');
    hash?.update(buffer);
    parts = [];
    size = 0;
    for (let offset = 0; offset < buffer.length; ) offset += (await handle.write(buffer, offset, buffer.length - offset)).bytesWritten;
    sliceStart = performance.now();
  };
  for (const chunk of chunks) {
    parts.push(chunk);
    size += chunk.length;
    if (size >= SLICE_BYTES || performance.now() - sliceStart >= SLICE_MS) await flush();
  }
  await flush();
}
