/**
 * Nothing written by a failed start: a new database file is
 * held back until the sandbox listens; a start that fails before leaves no
 * file, no lock and no directory, and a start that listens has its seed on disk
 * before createSandbox() returns.
 */
import { createServer } from 'node:net';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox.ts';
import { openStore } from '../../src/storage/index.ts';
import { put, tempDir } from './helpers.ts';

async function busyPort(): Promise<{ port: number; close: () => void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, close: () => server.close() };
}

describe('a new database file, held until the sandbox listens', () => {
  it('a start that fails on a port in use writes nothing: no database, no journal, no lock, no directory', async () => {
    const root = tempDir();
    const busy = await busyPort();
    try {
      const error = await createSandbox({ port: busy.port, storage: join(root, '.sandbox', 'db.json') }).then(
        () => null,
        (err: unknown) => err as Error,
      );
      expect(error?.message).toMatch(/is already in use/);
    } finally {
      busy.close();
    }
    expect(readdirSync(root)).toEqual([]);
  });

  it('a start that listens has its seed on disk when createSandbox() returns, and its lock', async () => {
    const path = join(tempDir(), '.sandbox', 'db.json');
    const sandbox = await createSandbox({ port: 0, storage: path });
    try {
      expect(existsSync(path)).toBe(true);
      expect(existsSync(`${path}.lock`)).toBe(true);
    } finally {
      await sandbox.stop();
    }
  });

  it('held writes queue; writeHeld() writes them; a commit or a flush ends the hold rather than wait on it', async () => {
    const dir = tempDir();
    const held = await openStore({ path: join(dir, 'a', 'db.json'), holdNewFile: true });
    const seeded = held.store.replaceAll({ c: { ws: { x: { id: 'x' } } } });
    await new Promise(setImmediate); // an unheld write would have begun
    expect(existsSync(join(dir, 'a', 'db.json'))).toBe(false);
    await held.store.writeHeld();
    await seeded;
    expect(existsSync(join(dir, 'a', 'db.json'))).toBe(true);
    await held.store.close();

    const committed = await openStore({ path: join(dir, 'b', 'db.json'), holdNewFile: true });
    void committed.store.replaceAll({ c: { ws: { x: { id: 'x' } } } });
    await committed.store.commit([put('c', 'ws', { id: 'y' })]); // resolves: the commit is durable, the seed with it
    expect(existsSync(join(dir, 'b', 'db.json'))).toBe(true);
    expect(await committed.store.discardHeld()).toBe(false); // written: closed as usual
    const reopened = await openStore({ path: join(dir, 'b', 'db.json') });
    expect(reopened.store.list('c', 'ws').map((r) => r.id)).toEqual(['x', 'y']);
    await reopened.store.close();
  });

  it('discardHeld() on a store that wrote nothing removes its lock and the directories its open created', async () => {
    const dir = tempDir();
    const path = join(dir, 'deep', 'er', 'db.json');
    const { store } = await openStore({ path, holdNewFile: true });
    void store.replaceAll({ c: { ws: { x: { id: 'x' } } } });
    expect(existsSync(`${path}.lock`)).toBe(true);
    expect(await store.discardHeld()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});
