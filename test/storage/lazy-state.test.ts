import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deferredFromJson, withRows } from '../../src/storage/deferred.ts';
import { InvalidOpError, openStore, type Collections, type DeferredCollections } from '../../src/storage/index.ts';
import type { LocalStore } from '../../src/storage/store.ts';
import { put, tempDir } from './helpers.ts';

/** JSON in ASCII (non-ASCII as \u escapes), as the prepared database is written. */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u0080-\uffff]/g, (u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The same JSON given whole (parsed) and deferred (its bytes, with each collection's span). */
function database(): { collections: Collections; deferred: DeferredCollections; loads: string[] } {
  const source: Collections = {
    workspaces: { _global: { w1: { id: 'w1', name: 'one' }, w2: { id: 'w2', name: 'two' } } },
    products: { w1: { p1: { id: 'p1', title: 'Ö tour' } }, w2: { p2: { id: 'p2', title: 'x' } } },
    bookings: { w1: { b1: { id: 'b1', productId: 'p1' }, b2: { id: 'b2', productId: 'p1' } } },
    empty: {},
  };
  let text = '{';
  const spans: [string, number, number][] = [];
  for (const [name, value] of Object.entries(source)) {
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(name)}:`;
    spans.push([name, text.length, (text += asciiJson(value)).length]);
  }
  text += '}';
  const inner = deferredFromJson(Buffer.from(text, 'latin1'), spans);
  const loads: string[] = [];
  const deferred: DeferredCollections = {
    ...inner,
    load: (name) => {
      loads.push(name);
      return inner.load(name);
    },
  };
  return { collections: JSON.parse(text) as Collections, deferred, loads };
}

const memoryStore = async () => (await openStore({})).store as LocalStore;

describe('deferred collections (a start parses what it reads)', () => {
  it('replaceAll parses nothing; a read parses that collection only, once', async () => {
    const { deferred, loads } = database();
    const store = await memoryStore();
    await store.replaceAll(deferred);
    expect(loads).toEqual([]);
    expect(store.pendingCollections).toEqual(['workspaces', 'products', 'bookings', 'empty']);

    expect(store.get('products', 'w1', 'p1')).toEqual({ id: 'p1', title: 'Ö tour' });
    expect(store.list('products', 'w2').map((r) => r.id)).toEqual(['p2']);
    expect(loads).toEqual(['products']);
    expect(store.pendingCollections).toEqual(['workspaces', 'bookings', 'empty']);
  });

  it('gives the same reads, versions, partitions and export (in the same order) as the parsed database', async () => {
    const { collections, deferred } = database();
    const eager = await memoryStore();
    const lazy = await memoryStore();
    await eager.replaceAll(collections);
    await lazy.replaceAll(deferred);

    expect(lazy.version('bookings', 'w1')).toBe(eager.version('bookings', 'w1'));
    expect(lazy.version('bookings', 'w9')).toBe(eager.version('bookings', 'w9'));
    expect(lazy.partitions('products')).toEqual(eager.partitions('products'));
    expect(lazy.list('empty', 'w1')).toEqual([]);
    // read one collection first, so the load order differs from the database order
    expect(lazy.get('bookings', 'w1', 'b2')).toEqual(eager.get('bookings', 'w1', 'b2'));
    expect(JSON.stringify(lazy.exportCollections())).toBe(JSON.stringify(eager.exportCollections()));
    expect(lazy.serialize()).toBe(eager.serialize());
    expect(lazy.pendingCollections).toEqual([]);
  });

  it('a write to a collection not read yet keeps its rows', async () => {
    const { deferred } = database();
    const store = await memoryStore();
    await store.replaceAll(deferred);
    await store.commit([put('bookings', 'w1', { id: 'b3', productId: 'p1' })]);
    expect(store.list('bookings', 'w1').map((r) => r.id)).toEqual(['b1', 'b2', 'b3']);
  });

  it('a collection that cannot be parsed fails every read of it, naming it, and nothing else', async () => {
    const { deferred } = database();
    const broken: DeferredCollections = { ...deferred, load: (name) => (name === 'bookings' ? JSON.parse('{"w1":') : deferred.load(name)) };
    const store = await memoryStore();
    await store.replaceAll(broken);
    expect(() => store.get('bookings', 'w1', 'b1')).toThrow(InvalidOpError);
    expect(() => store.list('bookings', 'w1')).toThrow(/collections\["bookings"\] cannot be read/);
    expect(store.get('products', 'w1', 'p1')).toMatchObject({ id: 'p1' });
    expect(store.pendingCollections).toContain('bookings');
  });

  it('a row whose id is not its key is refused when its collection is read', async () => {
    const bad = deferredFromJson('{"c":{"w":{"a":{"id":"b"}}}}', [['c', 5, 27]]);
    const store = await memoryStore();
    await store.replaceAll(bad);
    expect(() => store.get('c', 'w', 'a')).toThrow(/must equal its key/);
  });

  it('withRows adds rows as adding them one by one to the parsed database would', async () => {
    const extra: Collections = {
      workspaces: { _global: { w3: { id: 'w3', name: 'created' } } },
      bookings: { '__base:x': { b9: { id: 'b9' } }, w1: { b1: { id: 'b1', productId: 'changed' } } },
      overlays: { _global: { o1: { id: 'o1' } } },
    };
    const eager = await memoryStore();
    const lazy = await memoryStore();
    await eager.replaceAll(withRows(database().collections, structuredClone(extra)));
    await lazy.replaceAll(withRows(database().deferred, structuredClone(extra)));
    expect(lazy.pendingCollections).toEqual(['workspaces', 'products', 'bookings', 'empty', 'overlays']);
    expect(JSON.stringify(lazy.exportCollections())).toBe(JSON.stringify(eager.exportCollections()));
    expect(lazy.get('bookings', 'w1', 'b1')).toEqual({ id: 'b1', productId: 'changed' });
  });

  it('in file mode, the snapshot written for a deferred database holds every collection', async () => {
    const path = join(tempDir(), 'db.json');
    const { collections, deferred } = database();
    const writer = (await openStore({ path, fsync: false })).store;
    await writer.replaceAll(deferred);
    await writer.close();
    const reader = (await openStore({ path, fsync: false })).store;
    expect(JSON.stringify(reader.exportCollections())).toBe(
      JSON.stringify(Object.fromEntries(Object.entries(collections).filter(([name]) => name !== 'empty'))),
    );
    await reader.close();
  });
});
