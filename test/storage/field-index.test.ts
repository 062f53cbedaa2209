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
