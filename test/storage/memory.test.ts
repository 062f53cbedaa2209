import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GLOBAL_PARTITION,
  InvalidOpError,
  SCHEMA_VERSION,
  StoreError,
  onListenerError,
  openStore,
  type DbSnapshot,
  type Op,
  type Row,
  type StoreChange,
} from '../../src/storage/index.ts';
import { booking, del, put } from './helpers.ts';

const memoryStore = async () => {
  const opened = await openStore({});
  expect(opened.fresh).toBe(true);
  expect(opened.store.path).toBeNull();
  return opened.store;
};

describe('memory store: reads and writes', () => {
  it('puts, gets and lists rows in insertion order; an update keeps its position', async () => {
    const store = await memoryStore();
    await store.commit([put('bookings', 'ws1', booking('b1')), put('bookings', 'ws1', booking('b2'))]);
    await store.commit([put('bookings', 'ws1', booking('b3'))]);
    await store.commit([put('bookings', 'ws1', booking('b1', { status: 'cancelled' }))]);

    expect(store.list('bookings', 'ws1').map((r) => r.id)).toEqual(['b1', 'b2', 'b3']);
    expect(store.get('bookings', 'ws1', 'b1')).toMatchObject({ id: 'b1', status: 'cancelled' });
    expect(store.get('bookings', 'ws1', 'nope')).toBeUndefined();
    expect(store.get('bookings', 'ws2', 'b1')).toBeUndefined();
    expect(store.list('bookings', 'ws2')).toEqual([]);
    expect(store.list('nothing', 'ws1')).toEqual([]);
  });

  it('deletes rows; deleting a missing row is a no-op', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' }), put('c', 'ws', { id: 'b' }), put('c', 'ws', { id: 'c' })]);
    await store.commit([del('c', 'ws', 'b'), del('c', 'ws', 'missing'), del('other', 'ws', 'x')]);
    expect(store.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'c']);
    // re-adding a deleted id puts it at the end
    await store.commit([put('c', 'ws', { id: 'b' })]);
    expect(store.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'c', 'b']);
  });

  it('applies ops of one commit in order', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a', v: 1 }), del('c', 'ws', 'a'), put('c', 'ws', { id: 'a', v: 2 })]);
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a', v: 2 });
  });

  it('keeps partitions separate and lists the non-empty ones', async () => {
    const store = await memoryStore();
    await store.commit([
      put('bookings', 'ws1', booking('b1')),
      put('bookings', 'ws2', booking('b1', { status: 'held' })),
      put('workspaces', GLOBAL_PARTITION, { id: 'ws1' }),
    ]);
    expect(store.get('bookings', 'ws1', 'b1')?.status).toBe('confirmed');
    expect(store.get('bookings', 'ws2', 'b1')?.status).toBe('held');
    expect(store.partitions('bookings')).toEqual(['ws1', 'ws2']);
    expect(store.partitions('workspaces')).toEqual([GLOBAL_PARTITION]);
    expect(store.partitions('unknown')).toEqual([]);
    await store.commit([del('bookings', 'ws1', 'b1')]);
    expect(store.partitions('bookings')).toEqual(['ws2']);
  });

  it('stores private JSON copies of rows', async () => {
    const store = await memoryStore();
    const row = { id: 'r1', nested: { n: 1 }, gone: undefined, when: new Date(0) };
    await store.commit([put('c', 'ws', row)]);
    row.nested.n = 99;
    const stored = store.get('c', 'ws', 'r1')!;
    expect(stored).toEqual({ id: 'r1', nested: { n: 1 }, when: '1970-01-01T00:00:00.000Z' });
    expect('gone' in stored).toBe(false);
  });

  it('returns a cached, frozen list that is rebuilt after a change', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' })]);
    const first = store.list('c', 'ws');
    expect(store.list('c', 'ws')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    await store.commit([put('c', 'ws', { id: 'b' })]);
    expect(store.list('c', 'ws')).not.toBe(first);
    expect(store.list('c', 'ws')).toHaveLength(2);
  });
});

describe('memory store: versions and seq', () => {
  it('bumps the version of the touched partitions only', async () => {
    const store = await memoryStore();
    const v1 = store.version('c', 'ws1');
    const v2 = store.version('c', 'ws2');
    await store.commit([put('c', 'ws1', { id: 'a' })]);
    expect(store.version('c', 'ws1')).toBeGreaterThan(v1);
    expect(store.version('c', 'ws2')).toBe(v2);
    const after = store.version('c', 'ws1');
    await store.commit([del('c', 'ws1', 'a')]);
    expect(store.version('c', 'ws1')).toBeGreaterThan(after);
  });

  it('increments seq once per commit', async () => {
    const store = await memoryStore();
    expect(store.seq).toBe(0);
    await store.commit([put('c', 'ws', { id: 'a' }), put('c', 'ws', { id: 'b' })]);
    await store.commit([put('c', 'ws', { id: 'c' })]);
    expect(store.seq).toBe(2);
  });

  it('replaceAll bumps seq and every version, including of partitions it removes or creates', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'keep', { id: 'a' }), put('c', 'drop', { id: 'b' })]);
    const before = {
      keep: store.version('c', 'keep'),
      drop: store.version('c', 'drop'),
      none: store.version('c', 'none'),
      fresh: store.version('d', 'new'),
    };
    const seq = store.seq;
    await store.replaceAll({ c: { keep: { a: { id: 'a' } } }, d: { new: { z: { id: 'z' } } } });
    expect(store.seq).toBe(seq + 1);
    expect(store.version('c', 'keep')).toBeGreaterThan(before.keep);
    expect(store.version('c', 'drop')).toBeGreaterThan(before.drop);
    expect(store.version('c', 'none')).toBeGreaterThan(before.none);
    expect(store.version('d', 'new')).toBeGreaterThan(before.fresh);
    expect(store.list('c', 'drop')).toEqual([]);
    expect(store.get('d', 'new', 'z')).toEqual({ id: 'z' });
  });
});

describe('memory store: atomicity and validation', () => {
  const invalid: [string, unknown][] = [
    ['unknown type', { type: 'upsert', collection: 'c', workspaceId: 'ws', row: { id: 'x' } }],
    ['row without id', { type: 'put', collection: 'c', workspaceId: 'ws', row: { name: 'x' } }],
    ['numeric id', { type: 'put', collection: 'c', workspaceId: 'ws', row: { id: 7 } }],
    ['missing collection', { type: 'put', workspaceId: 'ws', row: { id: 'x' } }],
    ['missing workspace', { type: 'delete', collection: 'c', id: 'x' }],
    ['delete without id', { type: 'delete', collection: 'c', workspaceId: 'ws' }],
    ['row that is an array', { type: 'put', collection: 'c', workspaceId: 'ws', row: ['id'] }],
    ['row with a BigInt', { type: 'put', collection: 'c', workspaceId: 'ws', row: { id: 'x', n: 1n } }],
  ];

  it.each(invalid)('rejects a commit containing an op with %s and applies none of it', async (_name, bad) => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'existing', v: 1 })]);
    const changes: StoreChange[] = [];
    store.onChange((c) => changes.push(c));
    const version = store.version('c', 'ws');
    const seq = store.seq;

    const result = store.commit([put('c', 'ws', { id: 'new' }), put('c', 'ws', { id: 'existing', v: 2 }), bad as Op]);
    // nothing applied, synchronously
    expect(store.get('c', 'ws', 'new')).toBeUndefined();
    await expect(result).rejects.toBeInstanceOf(InvalidOpError);
    expect(store.get('c', 'ws', 'existing')).toEqual({ id: 'existing', v: 1 });
    expect(store.seq).toBe(seq);
    expect(store.version('c', 'ws')).toBe(version);
    expect(changes).toEqual([]);
  });

  it('rejects replaceAll input whose row ids do not match their keys, keeping the state', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await expect(store.replaceAll({ c: { ws: { x: { id: 'y' } } } })).rejects.toBeInstanceOf(InvalidOpError);
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a' });
    expect(store.seq).toBe(1);
  });

  it('applies a commit synchronously, before its promise settles', async () => {
    const store = await memoryStore();
    const p = store.commit([put('c', 'ws', { id: 'a' })]);
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a' });
    await p;
  });
});

describe('memory store: change notifications', () => {
  it('notifies listeners synchronously with the applied ops, and on replaceAll', async () => {
    const store = await memoryStore();
    const seen: StoreChange[] = [];
    const off = store.onChange((change) => seen.push(change));
    const p = store.commit([put('c', 'ws', { id: 'a' })]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({ kind: 'ops', ops: [put('c', 'ws', { id: 'a' })] });
    await p;
    await store.replaceAll({});
    expect(seen[1]).toEqual({ kind: 'replaced' });
    off();
    await store.commit([put('c', 'ws', { id: 'b' })]);
    expect(seen).toHaveLength(2);
  });

  it('keeps going when a listener throws, and reports it (test/storage/listener-errors.test.ts)', async () => {
    const store = await memoryStore();
    const reported: string[] = [];
    const previous = onListenerError((failure) => reported.push(failure.message));
    try {
      const seen: string[] = [];
      store.onChange(() => {
        throw new Error('boom');
      });
      store.onChange(() => seen.push('second'));
      await store.commit([put('c', 'ws', { id: 'a' })]);
      expect(seen).toEqual(['second']);
      expect(store.get('c', 'ws', 'a')).toBeDefined();
      expect(reported).toEqual([expect.stringContaining('put c ws/a: Error: boom')]);
    } finally {
      onListenerError(previous);
    }
  });
});

describe('memory store: export and serialize', () => {
  it('exportCollections returns a deep copy', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a', nested: { n: 1 } })]);
    const copy = store.exportCollections();
    expect(copy).toEqual({ c: { ws: { a: { id: 'a', nested: { n: 1 } } } } });
    (copy.c!.ws!.a!.nested as { n: number }).n = 2;
    delete copy.c!.ws!.a;
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a', nested: { n: 1 } });
  });

  it('serialize returns a DbSnapshot that can seed another store', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' }), put('c', 'ws', { id: 'b' }), put('d', GLOBAL_PARTITION, { id: 'x' })]);
    const snapshot = JSON.parse(store.serialize()) as DbSnapshot;
    expect(snapshot).toEqual({
      schemaVersion: SCHEMA_VERSION,
      seq: 1,
      collections: { c: { ws: { a: { id: 'a' }, b: { id: 'b' } } }, d: { [GLOBAL_PARTITION]: { x: { id: 'x' } } } },
    });
    const other = await memoryStore();
    await other.replaceAll(snapshot.collections);
    expect(other.list('c', 'ws').map((r: Row) => r.id)).toEqual(['a', 'b']);
  });

  it('serialize is deterministic: same state, same bytes', async () => {
    const build = async () => {
      const store = await memoryStore();
      await store.commit([put('c', 'ws2', { id: 'z', b: 1, a: 2 }), put('c', 'ws1', { id: 'y' })]);
      await store.commit([del('c', 'ws2', 'z'), put('c', 'ws2', { id: 'q' })]);
      return store;
    };
    const a = await build();
    const b = await build();
    expect(a.serialize()).toBe(a.serialize());
    expect(a.serialize()).toBe(b.serialize());
  });

  it('leaves out empty partitions', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.commit([del('c', 'ws', 'a')]);
    expect(JSON.parse(store.serialize()).collections).toEqual({});
  });
});

describe('memory store: lifecycle', () => {
  it('rejects writes after close but still serves reads', async () => {
    const store = await memoryStore();
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.flush();
    await store.close();
    await store.close(); // idempotent
    await expect(store.commit([put('c', 'ws', { id: 'b' })])).rejects.toBeInstanceOf(StoreError);
    await expect(store.replaceAll({})).rejects.toBeInstanceOf(StoreError);
    expect(store.get('c', 'ws', 'a')).toEqual({ id: 'a' });
  });

  it('rejects a bad compactAfterCommits', async () => {
    await expect(openStore({ compactAfterCommits: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('module boundary', () => {
  it('only src/storage imports lowdb', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const offenders: string[] = [];
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.[cm]?[jt]sx?$/.test(entry.name)) continue;
      const file = join(entry.parentPath, entry.name);
      const rel = relative(root, file).split('\\').join('/');
      if (rel.startsWith('storage/')) continue;
      if (/(from\s+|import\s*\(\s*|require\s*\(\s*)['"](lowdb|steno)(\/[^'"]*)?['"]/.test(readFileSync(file, 'utf8'))) {
        offenders.push(rel);
      }
    }
    expect(offenders).toEqual([]);
  });
});
