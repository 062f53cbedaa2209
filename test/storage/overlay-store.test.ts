import { describe, expect, it } from 'vitest';
import { maskId, newMask, parseMask } from '../../src/storage/id-mask.ts';
import { openStore } from '../../src/storage/index.ts';
import { basePartition, OVERLAYS_COLLECTION } from '../../src/storage/overlay-records.ts';
import { OverlayStore } from '../../src/storage/overlay-store.ts';
import { GLOBAL_PARTITION, type Op, type StoreChange } from '../../src/storage/types.ts';

const P1 = 'prod_11111111-1111-4111-8111-111111111111';
const P2 = 'prod_22222222-2222-4222-8222-222222222222';
const D1 = 'dept_33333333-3333-4333-8333-333333333333';
const TEMPLATE = 'wksp_44444444-4444-4444-8444-444444444444';

async function setup() {
  const { store: engine } = await openStore();
  const store = new OverlayStore(engine);
  const hex = newMask();
  const mask = parseMask(hex);
  const id = maskId(TEMPLATE, mask);
  await store.commit([
    { type: 'put', collection: 'products', workspaceId: basePartition('b1'), row: { id: P1, title: 'one', workspaceId: TEMPLATE } },
    { type: 'put', collection: 'products', workspaceId: basePartition('b1'), row: { id: P2, title: 'two', workspaceId: TEMPLATE } },
    { type: 'put', collection: 'departures', workspaceId: basePartition('b1'), row: { id: D1, productId: P2, byProduct: { [P1]: 1 } } },
    { type: 'put', collection: OVERLAYS_COLLECTION, workspaceId: GLOBAL_PARTITION, row: { id, baseId: 'b1', mask: hex, templateId: TEMPLATE, createdAt: '' } },
  ]);
  const changes: StoreChange[] = [];
  store.onChange((c) => changes.push(c));
  return { store, engine, id, m: (x: string) => maskId(x, mask), changes };
}

describe('OverlayStore: a created workspace as a copy-on-write view of its base', () => {
  it('shows the base rows with every id and reference rewritten by the mask, hides base partitions', async () => {
    const { store, id, m } = await setup();
    expect(m(TEMPLATE)).toBe(id);
    expect(m(m(P1))).toBe(P1);
    expect(store.list('products', id).map((r) => r.id)).toEqual([m(P1), m(P2)]);
    expect(store.get('departures', id, m(D1))).toEqual({ id: m(D1), productId: m(P2), byProduct: { [m(P1)]: 1 } });
    expect(store.get('products', id, P1)).toBeUndefined(); // the template's id is not this workspace's
    expect(store.get('products', id, m(P1))).toMatchObject({ workspaceId: id });
    expect(store.partitions('products')).toEqual([id]);
  });

  it('writes go to the workspace: an update keeps its place, a delete of a base row is a tombstone, listeners see the merged view', async () => {
    const { store, engine, id, m, changes } = await setup();
    const NEW = 'prod_55555555-5555-4555-8555-555555555555';
    await store.commit([
      { type: 'put', collection: 'products', workspaceId: id, row: { id: m(P1), title: 'changed' } },
      { type: 'put', collection: 'products', workspaceId: id, row: { id: NEW, title: 'new' } },
      { type: 'delete', collection: 'products', workspaceId: id, id: m(P2) },
    ]);
    expect(store.list('products', id).map((r) => [r.id, r.title])).toEqual([
      [m(P1), 'changed'],
      [NEW, 'new'],
    ]);
    expect(store.get('products', id, m(P2))).toBeUndefined();
    expect((changes[0] as unknown as { ops: Op[] }).ops.map((op) => op.type)).toEqual(['put', 'put', 'delete']);
    expect(engine.list('products', basePartition('b1')).map((r) => r.title)).toEqual(['one', 'two']); // the base is untouched

    // the workspace's own rows go away (a reset): the base rows show through again
    changes.length = 0;
    await engine.commit(engine.list('products', id).map((r) => ({ type: 'delete' as const, collection: 'products', workspaceId: id, id: r.id })));
    expect(store.list('products', id).map((r) => r.title)).toEqual(['one', 'two']);
    const ops = (changes[0] as unknown as { ops: Op[] }).ops;
    expect(ops.map((op) => [op.type, op.type === 'put' ? op.row.id : op.id])).toEqual([
      ['put', m(P1)],
      ['delete', NEW],
      ['put', m(P2)],
    ]);
  });

  it('listWhere answers what list().filter() would, rewriting only the base rows that match', async () => {
    const { store, id, m } = await setup();
    const P3 = 'prod_66666666-6666-4666-8666-666666666666';
    await store.commit([
      { type: 'put', collection: 'products', workspaceId: id, row: { id: m(P2), title: 'one' } }, // a base row changed to match
      { type: 'put', collection: 'products', workspaceId: id, row: { id: P3, title: 'one' } }, // a new own row
    ]);
    const where = (field: string, value: string) => store.listWhere('products', id, field, value).map((r) => r.id);
    const filtered = (field: string, value: string) =>
      store
        .list('products', id)
        .filter((r) => r[field] === value)
        .map((r) => r.id);
    expect(where('title', 'one')).toEqual([m(P1), m(P2), P3]);
    expect(where('title', 'two')).toEqual([]);
    expect(where('workspaceId', id)).toEqual(filtered('workspaceId', id)); // a value that is an id: compared under the mask
    expect(where('workspaceId', id)).toEqual([m(P1)]);
    await store.commit([{ type: 'delete', collection: 'products', workspaceId: id, id: m(P1) }]);
    expect(where('title', 'one')).toEqual([m(P2), P3]);
    expect(where('title', 'one')).toEqual(filtered('title', 'one'));
  });
});
