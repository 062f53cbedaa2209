import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CollectionRegistry, defineCollection } from '../../src/storage/collection.ts';
import { openStore } from '../../src/storage/index.ts';

const ITEMS = defineCollection({ name: 'items', schema: z.object({ id: z.string(), slug: z.string() }), idPrefix: 'itm' });

describe('typed collection handles (src/storage/collection.ts)', () => {
  it('read and write one collection of one store, partitioned by workspace', async () => {
    const { store } = await openStore({});
    const items = ITEMS.in(store);
    expect(ITEMS.in(store)).toBe(items); // one handle per store
    await items.put('a', { id: 'itm_1', slug: 'one' });
    await store.commit([ITEMS.putOp('a', { id: 'itm_2', slug: 'two' }), ITEMS.putOp('b', { id: 'itm_3', slug: 'three' })]);
    expect(items.get('a', 'itm_1')).toEqual({ id: 'itm_1', slug: 'one' });
    expect(items.list('a').map((i) => i.slug)).toEqual(['one', 'two']);
    expect(items.has('b', 'itm_1')).toBe(false);
    expect(items.partitions().sort()).toEqual(['a', 'b']);
    const before = items.version('a');
    await items.delete('a', 'itm_1');
    expect(items.get('a', 'itm_1')).toBeUndefined();
    expect(items.version('a')).toBeGreaterThan(before);
    // the rows are the store's own, under the declared name
    expect(store.list('items', 'a')).toEqual([{ id: 'itm_2', slug: 'two' }]);
  });

  it('builds the store ops for its rows', () => {
    expect(ITEMS.putOp('a', { id: 'itm_1', slug: 'one' })).toEqual({ type: 'put', collection: 'items', workspaceId: 'a', row: { id: 'itm_1', slug: 'one' } });
    expect(ITEMS.deleteOp('a', 'itm_1')).toEqual({ type: 'delete', collection: 'items', workspaceId: 'a', id: 'itm_1' });
  });

  it('defaults its flags: not internal, copied into created workspaces, not re-seeded', () => {
    expect(ITEMS).toMatchObject({ internal: false, copied: true, reseeded: false, idPrefix: 'itm' });
    expect(defineCollection({ name: 'x', schema: z.object({ id: z.string() }), idPrefix: null, internal: true }).copied).toBe(false);
  });

  it('a registry refuses a name declared twice', () => {
    const again = defineCollection({ name: 'items', schema: z.object({ id: z.string() }), idPrefix: null });
    expect(() => new CollectionRegistry([ITEMS, again])).toThrow('Collection items is declared twice');
    expect(new CollectionRegistry([ITEMS]).names).toEqual(['items']);
  });
});
