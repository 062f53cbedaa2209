import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { Op, Row } from '../../src/storage/index.ts';

const dirs: string[] = [];

/** A fresh temporary directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tcs-storage-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export const put = (collection: string, workspaceId: string, row: Row): Op => ({
  type: 'put',
  collection,
  workspaceId,
  row,
});

export const del = (collection: string, workspaceId: string, id: string): Op => ({
  type: 'delete',
  collection,
  workspaceId,
  id,
});

export const booking = (id: string, extra: Record<string, unknown> = {}): Row => ({
  id,
  status: 'confirmed',
  amount: { currency: 'EUR', value: 12345 },
  ...extra,
});

/**
 * Drops a store without flushing or compacting (as if the process died), but
 * releases its journal handle. Only for stores whose writes are all acknowledged.
 */
export const abandon = (store: object): Promise<void> => (store as { abandon(): Promise<void> }).abandon();
