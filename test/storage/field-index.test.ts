import { describe, expect, it } from 'vitest';
import { FieldIndex, openStore } from '../../src/storage/index.ts';

type Item = { id: string; slug: string };
const put = (id: string, slug: string, workspaceId = 'ws') => ({ type: 'put' as const, collection: 'items', workspaceId, row: { id, slug } });

describe('FieldIndex', () => {
  it('is built from the rows on first use, then follows puts, key changes and deletes', async () => {
    const { store } = await openStore();
    await store.commit([put('a', 'one'), put('b', 'two')]);
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    expect(index.has('ws', 'one')).toBe(true);
    await store.commit([put('c', 'one')]);
    expect([...index.ids('ws', 'one')]).toEqual(['a', 'c']);
    await store.commit([put('a', 'three')]);
    expect([...index.ids('ws', 'one')]).toEqual(['c']);
    expect(index.rows('ws', 'three')).toEqual([{ id: 'a', slug: 'three' }]);
    await store.commit([{ type: 'delete', collection: 'items', workspaceId: 'ws', id: 'c' }]);
    expect(index.has('ws', 'one')).toBe(false);
  });

  it('a key held by one row (kept without a Set) follows that row alone', async () => {
    const { store } = await openStore();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    await store.commit([put('a', 'solo'), put('b', 'other')]);
    expect([...index.ids('ws', 'solo')]).toEqual(['a']);
    await store.commit([{ type: 'delete', collection: 'items', workspaceId: 'ws', id: 'b' }]);
    expect(index.has('ws', 'solo')).toBe(true); // another row's delete leaves it
    expect(index.has('ws', 'other')).toBe(false);
    await store.commit([put('a', 'renamed')]);
    expect(index.has('ws', 'solo')).toBe(false);
    expect(index.rows('ws', 'renamed')).toEqual([{ id: 'a', slug: 'renamed' }]);
    await store.commit([put('c', 'renamed'), { type: 'delete', collection: 'items', workspaceId: 'ws', id: 'a' }]);
    expect([...index.ids('ws', 'renamed')]).toEqual(['c']);
  });

  it('keeps workspaces apart, and is rebuilt after the store is replaced', async () => {
    const { store } = await openStore();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    await store.commit([put('a', 'one', 'ws1')]);
    expect(index.has('ws1', 'one')).toBe(true);
    expect(index.has('ws2', 'one')).toBe(false);
    await store.replaceAll({ items: { ws2: { z: { id: 'z', slug: 'one' } } } });
    expect(index.has('ws1', 'one')).toBe(false);
    expect(index.has('ws2', 'one')).toBe(true);
  });

  it('is shared by name per store, so services built twice use one index', async () => {
    const { store } = await openStore();
    const first = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    expect(FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug)).toBe(first);
  });
});

/**
 * The index keeps no map from id to key and no Set for a few ids (memory);
 * ids of deleted rows and old keys stay filed until a lookup checks them
 * against the store (src/storage/field-index.ts, docs/storage.md).
 */
describe('FieldIndex, checked against the store', () => {
  const del = (id: string, workspaceId = 'ws') => ({ type: 'delete' as const, collection: 'items', workspaceId, id });

  it('answers from the stored rows: a key left and taken back, a row deleted and put again, a row whose key becomes null', async () => {
    const { store } = await openStore();
    const index = FieldIndex.of<Item & { slug: string | null }>(store, 'items', 'slug', (row) => row.slug);
    await store.commit([put('a', 'one'), put('b', 'one')]);
    expect(index.rows('ws', 'one').map((r) => r.id)).toEqual(['a', 'b']);
    await store.commit([put('a', 'two')]);
    await store.commit([put('a', 'one')]); // back: still filed under "one" (stale meanwhile), so it keeps its place
    expect(index.rows('ws', 'one').map((r) => r.id)).toEqual(['a', 'b']);
    expect(index.has('ws', 'two')).toBe(false);
    await store.commit([del('b'), put('b', 'one')]);
    expect(index.rows('ws', 'one').map((r) => r.id)).toEqual(['a', 'b']); // once, not twice
    await store.commit([{ type: 'put', collection: 'items', workspaceId: 'ws', row: { id: 'a', slug: null } }]);
    expect([...index.ids('ws', 'one')]).toEqual(['b']);
  });

  it('keeps order and follows deletes in a large group (more than a few ids share a key)', async () => {
    const { store } = await openStore();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    expect(index.has('ws', 'big')).toBe(false); // built now, empty: what follows comes through the change feed
    const ids = Array.from({ length: 20 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const id of ids) await store.commit([put(id, 'big')]);
    await store.commit(ids.filter((_, i) => i % 3 === 0).map((id) => del(id)));
    expect(index.rows('ws', 'big').map((r) => r.id)).toEqual(ids.filter((_, i) => i % 3 !== 0));
  });

  it('holds a bounded number of ids however many rows are deleted and made again', async () => {
    const { store } = await openStore();
    const index = FieldIndex.of<Item>(store, 'items', 'slug', (row) => row.slug);
    await store.commit([put('keep', 'kept')]);
    expect(index.has('ws', 'kept')).toBe(true);
    let most = 0;
    for (let round = 0; round < 50; round++) {
      const ids = Array.from({ length: 40 }, (_, i) => `r${round}_${i}`);
      await store.commit(ids.map((id, i) => put(id, `slug-${round}-${i}`))); // keys never looked up again
      await store.commit(ids.map((id) => del(id)));
      most = Math.max(most, index.filedIds('ws'));
    }
    expect(most).toBeLessThanOrEqual(200); // 2,001 rows were filed in all; 1 is left
    expect(index.rows('ws', 'kept').map((r) => r.id)).toEqual(['keep']);
    expect(index.has('ws', 'slug-49-0')).toBe(false);
  });

  it('keeps a bounded number of partitions, the least recently looked up dropped first and rebuilt exactly', async () => {
    const { store } = await openStore();
    await store.commit(['ws1', 'ws2', 'ws3'].map((ws) => put(`${ws}-a`, 'one', ws)));
    const index = new FieldIndex<Item>(store, 'items', (row) => row.slug, 2);
    expect(index.rows('ws1', 'one').map((r) => r.id)).toEqual(['ws1-a']);
    expect(index.rows('ws2', 'one').map((r) => r.id)).toEqual(['ws2-a']);
    expect(index.has('ws1', 'one')).toBe(true); // ws1 is now the most recent: ws2 goes next
    expect(index.rows('ws3', 'one').map((r) => r.id)).toEqual(['ws3-a']);
    expect(index.partitionCount).toBe(2);
    expect([index.filedIds('ws1'), index.filedIds('ws2'), index.filedIds('ws3')]).toEqual([1, 0, 1]);
    await store.commit([put('ws2-b', 'one', 'ws2')]); // while dropped: the rebuild sees it
    expect(index.rows('ws2', 'one').map((r) => r.id)).toEqual(['ws2-a', 'ws2-b']);
    expect(index.partitionCount).toBe(2);
  });
});
