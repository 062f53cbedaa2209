import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ByProduct } from '../../src/resources/catalog/by-product.ts';
import { defineCollection } from '../../src/storage/collection.ts';
import { openStore } from '../../src/storage/index.ts';

const OPTIONS = defineCollection({ name: 'byProductOptions', schema: z.object({ id: z.string(), productId: z.string(), n: z.number() }), idPrefix: null });

/** Pricing reads one product's options from a grouping kept per partition version, in list order. */
describe('ByProduct', () => {
  it('gives one product rows in list order, and follows every write to the collection', async () => {
    const { store } = await openStore();
    const repo = OPTIONS.in(store);
    const by = new ByProduct(repo);
    await store.commit([
      OPTIONS.putOp('ws', { id: 'a', productId: 'p1', n: 1 }),
      OPTIONS.putOp('ws', { id: 'b', productId: 'p2', n: 1 }),
      OPTIONS.putOp('ws', { id: 'c', productId: 'p1', n: 1 }),
    ]);
    const ofP1 = () => by.of('ws', 'p1').map((o) => `${o.id}${o.n}`);
    expect(ofP1()).toEqual(['a1', 'c1']);
    await store.commit([OPTIONS.putOp('ws', { id: 'a', productId: 'p1', n: 2 })]);
    expect(ofP1()).toEqual(['a2', 'c1']);
    await store.commit([OPTIONS.deleteOp('ws', 'a'), OPTIONS.putOp('ws', { id: 'a', productId: 'p1', n: 3 })]);
    expect(ofP1()).toEqual(['c1', 'a3']); // re-created: last, as the list has it
    await store.commit([OPTIONS.putOp('ws', { id: 'c', productId: 'p2', n: 1 })]);
    expect(ofP1()).toEqual(['a3']);
    expect(by.of('ws', 'p2').map((o) => o.id)).toEqual(['b', 'c']);
    expect(by.of('other', 'p1')).toEqual([]);
  });
});
