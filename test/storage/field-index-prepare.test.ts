import { afterEach, describe, expect, it } from 'vitest';
import { FieldIndex, openStore } from '../../src/storage/index.ts';
import { allowPacking } from '../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../src/storage/large-files/index.ts';
import type { Store } from '../../src/storage/types.ts';

/**
 * FieldIndex.prepare: a large partition's index is built in slices between other work,
 * from a copy of the partition, and the puts made meanwhile are filed after it, so it answers what
 * an index built in one go on the store as it ends up answers.
 */
type Item = { id: string; slug: string };
const put = (id: string, slug: string, workspaceId = 'ws') => ({ type: 'put' as const, collection: 'items', workspaceId, row: { id, slug } });
const ROWS = 5_000; // past EAGER_BUILD_ROWS: a partition this large is built in slices
const slice = FieldIndex.SLICE_MS;
afterEach(() => {
  FieldIndex.SLICE_MS = slice;
  setPackLimits(DEFAULT_PACK_LIMITS);
});
allowPacking('packedItems');

async function filled(): Promise<Store> {
  const { store } = await openStore();
  await store.commit(Array.from({ length: ROWS }, (_, i) => put(`r${i}`, `k${i % 50}`)));
  return store;
}
/** what an index built now, in one go, answers for each key */
const oneGo = (store: Store, keys: string[]) => {
  const fresh = FieldIndex.of<Item>(store, 'items', `slug-check-${Math.random()}`, (row) => row.slug);
  return keys.map((key) => [...fresh.ids('ws', key)]);
};
const keys = ['k0', 'k7', 'k49', 'new', 'moved'];

describe('FieldIndex.prepare', () => {
  it('builds a large partition in slices, lets other work in, and files the puts made meanwhile in order', async () => {
    FieldIndex.SLICE_MS = 0; // a slice per row
    const store = await filled();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const ready = index.prepare('ws');
    await new Promise((resolve) => setImmediate(resolve));
    // writes while it builds: a new row, a key changed, a row deleted
    await store.commit([put('n1', 'new'), put('r7', 'moved'), { type: 'delete', collection: 'items', workspaceId: 'ws', id: 'r0' }, put('n2', 'k0')]);
    expect(index.filedIds('ws')).toBe(0); // not built yet
    await ready;
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
    expect(keys.map((key) => [...index.ids('ws', key)])).toEqual(oneGo(store, keys));
    expect([...index.ids('ws', 'k0')].at(-1)).toBe('n2'); // after the rows that were there
    expect(index.prepare('ws')).toBeInstanceOf(Promise); // built: resolves at once
  });

  it('a lookup during the build answers at once, and the build then gives way to it', async () => {
    FieldIndex.SLICE_MS = 0;
    const store = await filled();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    const ready = index.prepare('ws');
    await new Promise((resolve) => setImmediate(resolve));
    expect([...index.ids('ws', 'k1')]).toHaveLength(ROWS / 50);
    await store.commit([put('n1', 'k1')]);
    await ready;
    expect([...index.ids('ws', 'k1')]).toHaveLength(ROWS / 50 + 1);
    expect(keys.map((key) => [...index.ids('ws', key)])).toEqual(oneGo(store, keys));
  });

  it('a store replaced during the build is indexed afresh', async () => {
    FieldIndex.SLICE_MS = 0;
    const store = await filled();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    const ready = index.prepare('ws');
    await new Promise((resolve) => setImmediate(resolve));
    await store.replaceAll({ items: { ws: { z: { id: 'z', slug: 'k0' } } } });
    await ready;
    expect(index.filedIds('ws')).toBe(0); // the old rows' build was dropped, not kept
    expect([...index.ids('ws', 'k0')]).toEqual(['z']);
    expect([...index.ids('ws', 'k1')]).toEqual([]);
  });

  it('walks a packed partition from its copy while rows are put, changed and folded back into pages', async () => {
    FieldIndex.SLICE_MS = 0;
    setPackLimits({ packAfter: 64, hotRows: 16, pageBytes: 256 });
    const { store } = await openStore();
    const packed = (id: string, slug: string) => ({ ...put(id, slug), collection: 'packedItems' });
    await store.commit(Array.from({ length: ROWS }, (_, i) => packed(`r${i}`, `k${i % 50}`)));
    const index = FieldIndex.of<Item>(store, 'packedItems', 'slug', (row) => row.slug);
    const ready = index.prepare('ws');
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      // new rows (each past the hot rows packs a page) and changed packed rows (past 16, folded back)
      await store.commit([packed(`n${i}`, 'new'), packed(`r${i * 97}`, 'moved')]);
    }
    await ready;
    const fresh = FieldIndex.of<Item>(store, 'packedItems', 'slug-check', (row) => row.slug);
    for (const key of ['k0', 'k13', 'new', 'moved']) expect([...index.ids('ws', key)]).toEqual([...fresh.ids('ws', key)]);
    expect(index.ids('ws', 'new').size).toBe(40);
  });

  it('builds a small partition at once', async () => {
    const { store } = await openStore();
    await store.commit([put('a', 'one')]);
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    void index.prepare('ws');
    expect(index.filedIds('ws')).toBe(1);
  });
});
