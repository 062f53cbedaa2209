/**
 * Power-loss safety (docs/storage.md, "Write sequence").
 *
 * node:fs/promises is replaced by a shim that models what a disk keeps when
 * the power goes: file contents as of their last fsync, directory entries as
 * of the directory's last fsync. A scenario of seeding, journalled commits and
 * compactions is run once to count its file-system steps, then again with the
 * power cut before each step in turn. After each cut the directory is rewritten
 * to what the disk would hold (or, for kill -9, left as it is), and the next
 * open must load every acknowledged write.
 */
import { readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openStore, type InstrumentedStore } from '../../src/storage/index.ts';
import { put, tempDir } from './helpers.ts';

const disk = vi.hoisted(() => ({
  /** steps taken so far; the power goes before step `cutAt` */
  steps: [] as string[],
  cutAt: Infinity,
  dead: false,
  /** inode -> contents as of its last fsync */
  durable: new Map<number, Buffer>(),
  /** name -> inode, as of the directory's last fsync */
  durableDir: new Map<string, number>(),
  dir: '',
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const { readdirSync: list, readFileSync: read, statSync: stat } = await import('node:fs');
  const { basename } = await import('node:path');
  const step = (label: string) => {
    if (disk.dead || disk.steps.length >= disk.cutAt) {
      disk.dead = true;
      throw Object.assign(new Error(`power cut before: ${label}`), { code: 'EIO' });
    }
    disk.steps.push(label);
  };
  const syncFile = (path: string) => disk.durable.set(stat(path).ino, read(path));
  const syncDir = (dir: string) => {
    disk.durableDir = new Map(
      list(dir)
        .filter((n) => !n.endsWith('.lock'))
        .map((n) => [n, stat(`${dir}/${n}`).ino]),
    );
  };
  const open = async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
    const path = String(args[0]);
    if (disk.dead) step(`open ${basename(path)}`);
    const handle = await actual.open(...args);
    const isDir = stat(path).isDirectory();
    const name = isDir ? 'directory' : basename(path);
    return new Proxy(handle, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (typeof value !== 'function') return value;
        const fn = value.bind(target) as (...a: unknown[]) => Promise<unknown>;
        if (key === 'sync' || key === 'datasync') {
          return async () => {
            step(`fsync ${name}`);
            await fn();
            if (isDir) syncDir(path);
            else syncFile(path);
          };
        }
        if (key === 'write' || key === 'writeFile' || key === 'truncate') {
          return async (...a: unknown[]) => {
            step(`${String(key)} ${name}`);
            return fn(...a);
          };
        }
        return fn;
      },
    });
  };
  const rename = async (from: string, to: string) => {
    step(`rename ${basename(from)} -> ${basename(to)}`);
    return actual.rename(from, to);
  };
  return { ...actual, open, rename, default: { ...actual, open, rename } };
});

type Crash = 'power loss' | 'kill -9';

/** The scenario: seed, journalled commits, a compaction, concurrent commits, close. */
async function scenario(path: string, acked: Set<string>): Promise<void> {
  const { store } = await openStore({ path });
  const ack = (id: string, p: Promise<void>) => p.then(() => void acked.add(id));
  try {
    await ack('seed', store.replaceAll({ c: { ws: { seed: { id: 'seed' } } } }));
    for (const id of ['a1', 'a2', 'a3']) await ack(id, store.commit([put('c', 'ws', { id })]));
    await store.compact();
    await Promise.all(['b1', 'b2', 'b3'].map((id) => ack(id, store.commit([put('c', 'ws', { id }), put('d', 'ws', { id })]))));
    await ack('c1', store.commit([put('c', 'ws', { id: 'c1' })]));
    await store.close();
  } catch {
    // the power went: the store is dropped where it stands
    await (store as InstrumentedStore & { abandon(): Promise<void> }).abandon().catch(() => undefined);
  }
}

/** Leaves in `dir` exactly what the disk would hold after the crash. */
function afterCrash(dir: string, crash: Crash): void {
  if (crash === 'kill -9') return; // the kernel keeps every completed write
  const kept = new Map([...disk.durableDir].map(([name, ino]) => [name, disk.durable.get(ino) ?? Buffer.alloc(0)]));
  for (const name of readdirSync(dir)) if (!name.endsWith('.lock')) unlinkSync(join(dir, name));
  for (const [name, contents] of kept) writeFileSync(join(dir, name), contents);
}

function reset(cutAt: number): void {
  Object.assign(disk, { steps: [], cutAt, dead: false, durable: new Map(), durableDir: new Map() });
}

describe('power loss between each pair of write steps', () => {
  it('the next open loads every acknowledged write, whatever the step the power went before', async () => {
    reset(Infinity);
    const dry = tempDir();
    await scenario(join(dry, 'db.json'), new Set());
    const sequence = [...disk.steps];
    // the documented order: temp written, fsynced, renamed, directory fsynced, then the journal emptied
    expect(sequence.slice(0, 6)).toEqual([
      'write .db.json.tmp',
      'fsync .db.json.tmp',
      'rename .db.json.tmp -> db.json',
      'fsync directory',
      'truncate db.json.journal',
      'fsync db.json.journal',
    ]);
    expect(sequence.length).toBeGreaterThan(20);

    let checked = 0;
    for (const crash of ['power loss', 'kill -9'] as const) {
      for (let cut = 0; cut <= sequence.length; cut++) {
        reset(cut);
        const dir = tempDir();
        const path = join(dir, 'db.json');
        const acked = new Set<string>();
        await scenario(path, acked);
        afterCrash(dir, crash);
        reset(Infinity);
        const where = `${crash} before step ${cut} (${sequence[cut] ?? 'end'}); acknowledged: ${[...acked].join(' ')}`;
        const { store, fresh } = await openStore({ path }).catch((err: Error) => {
          throw new Error(`${where}: the database does not load: ${err.message}`);
        });
        if (fresh) expect(acked.size, where).toBe(0);
        for (const id of acked) expect(store.get('c', 'ws', id), `${where}: ${id} is lost`).toBeDefined();
        // a commit is all or nothing: b* rows come in pairs
        for (const id of ['b1', 'b2', 'b3']) expect(store.get('d', 'ws', id) === undefined, where).toBe(store.get('c', 'ws', id) === undefined);
        await store.close();
        checked++;
      }
    }
    expect(checked).toBe(2 * (sequence.length + 1));
  });
});
