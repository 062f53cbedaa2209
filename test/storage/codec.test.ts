import { afterEach, describe, expect, it } from 'vitest';
import { allowPacking } from '../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, PackedRows, packedInBackground, setPackLimits } from '../../src/storage/large-files/index.ts';
import {
  applyOps,
  captureState,
  collectionsFromState,
  emptySnapshot,
  errorText,
  isPlainObject,
  oneLine,
  opProblem,
  partitionsFrom,
  prepareOps,
  stateFromCollections,
  type State,
} from '../../src/storage/codec.ts';
import { InvalidOpError, SCHEMA_VERSION, type Op } from '../../src/storage/types.ts';

/**
 * Ops and the in-memory state (src/storage/codec.ts; cases a mutation
 * test found unchecked): what commit() and journal replay accept, and how state is applied,
 * built from a snapshot's collections and captured for the next one.
 */
const put = (id: string, extra: Record<string, unknown> = {}, collection = 'products', workspaceId = 'ws_1'): Op => ({
  type: 'put',
  collection,
  workspaceId,
  row: { id, ...extra },
});
const del = (id: string, collection = 'products', workspaceId = 'ws_1'): Op => ({ type: 'delete', collection, workspaceId, id });

const rowsOf = (state: State, collection = 'products', workspaceId = 'ws_1') => [...(state.get(collection)?.get(workspaceId)?.rows.values() ?? [])];

describe('op shape', () => {
  it('accepts a put with a row that has an id, and a delete with an id', () => {
    expect(opProblem(put('a'))).toBeNull();
    expect(opProblem(del('a'))).toBeNull();
  });

  it.each([
    [null, 'is not an object'],
    [[], 'is not an object'],
    ['put', 'is not an object'],
    [{ type: 'put', workspaceId: 'ws_1', row: { id: 'a' } }, 'has no collection'],
    [{ type: 'put', collection: '', workspaceId: 'ws_1', row: { id: 'a' } }, 'has no collection'],
    [{ type: 'put', collection: 7, workspaceId: 'ws_1', row: { id: 'a' } }, 'has no collection'],
    [{ type: 'put', collection: 'products', row: { id: 'a' } }, 'has no workspaceId'],
    [{ type: 'put', collection: 'products', workspaceId: '', row: { id: 'a' } }, 'has no workspaceId'],
    [{ type: 'put', collection: 'products', workspaceId: 'ws_1' }, 'has a row that is not an object'],
    [{ type: 'put', collection: 'products', workspaceId: 'ws_1', row: [] }, 'has a row that is not an object'],
    [{ type: 'put', collection: 'products', workspaceId: 'ws_1', row: {} }, 'has a row without a string id'],
    [{ type: 'put', collection: 'products', workspaceId: 'ws_1', row: { id: '' } }, 'has a row without a string id'],
    [{ type: 'put', collection: 'products', workspaceId: 'ws_1', row: { id: 1 } }, 'has a row without a string id'],
    [{ type: 'delete', collection: 'products', workspaceId: 'ws_1' }, 'has no id'],
    [{ type: 'delete', collection: 'products', workspaceId: 'ws_1', id: '' }, 'has no id'],
    [{ type: 'upsert', collection: 'products', workspaceId: 'ws_1', id: 'a' }, 'has unknown type "upsert"'],
    [{ collection: 'products', workspaceId: 'ws_1', id: 'a' }, 'has unknown type undefined'],
  ])('%j %s', (op, problem) => {
    expect(opProblem(op)).toBe(problem);
  });

  it('a plain object is neither null nor an array', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject('x')).toBe(false);
  });
});

describe('error text', () => {
  it('one line: whitespace runs become one space, trimmed', () => {
    expect(oneLine('  a\n\tb   c \n')).toBe('a b c');
  });

  it('bounded: longer text is cut with an ellipsis at the bound', () => {
    expect(oneLine('x'.repeat(300))).toBe('x'.repeat(300));
    expect(oneLine('x'.repeat(301))).toBe(`${'x'.repeat(299)}…`);
    expect(oneLine('abcdef', 4)).toBe('abc…');
    expect(oneLine('abcd', 4)).toBe('abcd');
  });

  it("an error's message, or the thrown value as text", () => {
    expect(errorText(new Error('bad\nthing'))).toBe('bad thing');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(42)).toBe('42');
  });
});

describe('prepareOps', () => {
  it('refuses what is not an array', () => {
    expect(() => prepareOps({} as unknown as Op[], false)).toThrow(new InvalidOpError('commit() expects an array of ops'));
  });

  it('names the first bad op by its index', () => {
    expect(() => prepareOps([put('a'), { type: 'delete', collection: 'products', workspaceId: 'ws_1' } as unknown as Op], false)).toThrow(
      new InvalidOpError('ops[1] has no id'),
    );
  });

  it('refuses a row that is not JSON, or whose JSON is no object with an id', () => {
    const cyclic: Record<string, unknown> = { id: 'a' };
    cyclic.self = cyclic;
    expect(() => prepareOps([put('a'), { ...put('b'), row: cyclic } as Op], false)).toThrow(/^ops\[1\]\.row is not JSON-serialisable: .+/);
    const becomesString = { id: 'a', toJSON: () => 'a' };
    expect(() => prepareOps([{ ...put('a'), row: becomesString } as unknown as Op], false)).toThrow(
      new InvalidOpError('ops[0].row does not serialise to a JSON object with a string id'),
    );
    const losesId = { id: 'a', toJSON: () => ({ name: 'x' }) };
    expect(() => prepareOps([{ ...put('a'), row: losesId } as unknown as Op], false)).toThrow(
      new InvalidOpError('ops[0].row does not serialise to a JSON object with a string id'),
    );
    const becomesUndefined = { id: 'a', toJSON: () => undefined };
    expect(() => prepareOps([{ ...put('a'), row: becomesUndefined } as unknown as Op], false)).toThrow(InvalidOpError);
  });

  it('rows become private JSON copies; the ops are frozen', () => {
    const row = { id: 'a', when: new Date(0), gone: undefined, nested: { n: 1 } };
    const prepared = prepareOps([{ type: 'put', collection: 'products', workspaceId: 'ws_1', row } as Op, del('b')], false);
    expect(prepared.ops).toEqual([
      { type: 'put', collection: 'products', workspaceId: 'ws_1', row: { id: 'a', when: '1970-01-01T00:00:00.000Z', nested: { n: 1 } } },
      { type: 'delete', collection: 'products', workspaceId: 'ws_1', id: 'b' },
    ]);
    const copy = (prepared.ops[0] as Extract<Op, { type: 'put' }>).row;
    expect(copy).not.toBe(row);
    expect(copy.nested).not.toBe(row.nested);
    expect(Object.isFrozen(prepared.ops)).toBe(true);
    expect(prepared.opsJson).toBeNull();
  });

  it('shares the small values of the rows it is asked to intern, and only of those', () => {
    const ops = [put('a', { meta: {} }, 'products'), put('b', { meta: {} }, 'bookings')];
    const rows = prepareOps(ops, false, (collection) => collection === 'products').ops.map((op) => (op as Extract<Op, { type: 'put' }>).row);
    expect(Object.isFrozen(rows[0]!.meta)).toBe(true); // a shared leaf is frozen
    expect(Object.isFrozen(rows[1]!.meta)).toBe(false);
    expect(rows[1]).toEqual({ id: 'b', meta: {} });
  });

  it('in file mode, the journal text of the ops: each serialised once, joined with commas', () => {
    const extra = { type: 'put', collection: 'products', workspaceId: 'ws_1', row: { id: 'a', n: 1 }, note: 'dropped' } as unknown as Op;
    const prepared = prepareOps([extra, del('b')], true);
    expect(prepared.opsJson).toBe(
      '{"type":"put","collection":"products","workspaceId":"ws_1","row":{"id":"a","n":1}},' +
        '{"type":"delete","collection":"products","workspaceId":"ws_1","id":"b"}',
    );
    expect(JSON.parse(`[${prepared.opsJson}]`)).toEqual(prepared.ops);
    expect(prepareOps([], true).opsJson).toBe('');
  });
});

describe('applyOps', () => {
  it('puts and deletes rows by partition; an existing key keeps its position', () => {
    const state: State = new Map();
    applyOps(state, [put('a', { n: 1 }), put('b'), put('x', {}, 'products', 'ws_2'), put('c', {}, 'bookings')], 1);
    applyOps(state, [put('a', { n: 2 }), del('b'), del('zz'), del('q', 'nothing'), del('q', 'products', 'ws_9')], 2);
    expect(rowsOf(state)).toEqual([{ id: 'a', n: 2 }]);
    expect(rowsOf(state, 'products', 'ws_2')).toEqual([{ id: 'x' }]);
    expect(rowsOf(state, 'bookings')).toEqual([{ id: 'c' }]);
    expect(state.get('products')!.get('ws_1')!.version).toBe(2);
    expect(state.get('products')!.get('ws_2')!.version).toBe(1);
    expect(state.has('nothing')).toBe(false);
    expect(state.get('products')!.has('ws_9')).toBe(false);
    applyOps(state, [put('d'), put('a', { n: 3 })], 3);
    expect(rowsOf(state).map((r) => r.id)).toEqual(['a', 'd']);
  });

  it('a partition held by the snapshot being written is copied before its first change, once', () => {
    const state: State = new Map();
    applyOps(state, [put('a'), put('b'), put('z', {}, 'products', 'ws_2')], 1);
    const captured = captureState(state, 7);
    const held = captured[0]![1][0]![1];
    const heldOther = captured[0]![1][1]![1];
    expect([...held].map(([id]) => id)).toEqual(['a', 'b']);

    applyOps(state, [put('c'), del('a')], 2, 7);
    expect([...held].map(([id]) => id)).toEqual(['a', 'b']);
    expect(rowsOf(state).map((r) => r.id)).toEqual(['b', 'c']);
    const partition = state.get('products')!.get('ws_1')!;
    expect(partition.sharedGen).toBe(0);
    const own = partition.rows;
    applyOps(state, [put('d')], 3, 7);
    expect(partition.rows).toBe(own);

    // a delete copies too, and a change with no snapshot being written (0) copies nothing
    applyOps(state, [del('z', 'products', 'ws_2')], 4, 7);
    expect([...heldOther].map(([id]) => id)).toEqual(['z']);
    const other = state.get('products')!.get('ws_2')!;
    expect(other.rows.size).toBe(0);
    captureState(state, 8);
    const rows = partition.rows;
    applyOps(state, [put('e')], 5);
    expect(partition.rows).toBe(rows);
    expect(partition.sharedGen).toBe(8);
    applyOps(state, [put('f')], 6, 9);
    expect(partition.rows).toBe(rows);
  });
});

describe('copy-on-write without a snapshot', () => {
  it('a change while no snapshot is being written (generation 0) copies nothing', () => {
    const state: State = new Map();
    applyOps(state, [put('a')], 1);
    const partition = state.get('products')!.get('ws_1')!;
    const rows = partition.rows;
    applyOps(state, [put('b'), del('a')], 2);
    expect(partition.rows).toBe(rows);
    expect(partition.sharedGen).toBe(0);
  });
});

describe('large partitions (packed rows)', () => {
  afterEach(() => setPackLimits(DEFAULT_PACK_LIMITS));

  it('a partition loaded from a snapshot is packed in the background, one grown by commits as it grows', async () => {
    allowPacking('bookings');
    setPackLimits({ packAfter: 8, hotRows: 4, pageBytes: 600 });
    const rows = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`b${i}`, { id: `b${i}`, text: 'x'.repeat(40) }]));
    const loaded = stateFromCollections({ bookings: { ws_1: rows } }, 1, (problem) => new Error(problem))
      .get('bookings')!
      .get('ws_1')!;
    expect(loaded.rows).toBeInstanceOf(PackedRows);
    await packedInBackground();
    expect((loaded.rows as PackedRows).pageCount).toBeGreaterThan(0);
    expect(loaded.rows.get('b0')).toEqual(rows.b0);
    expect(loaded.rows.size).toBe(40);
  });
});

describe('state from collections and back', () => {
  const error = (problem: string) => new Error(`bad: ${problem}`);

  it('builds partitions with the version; empty ones are left out', () => {
    const row = { id: 'a' };
    const state = stateFromCollections({ products: { ws_1: { a: row }, ws_2: {} }, empty: {}, bookings: { ws_1: {} } }, 5, error);
    expect([...state.keys()]).toEqual(['products']);
    expect([...state.get('products')!.keys()]).toEqual(['ws_1']);
    const partition = state.get('products')!.get('ws_1')!;
    expect(partition.version).toBe(5);
    expect(partition.sharedGen).toBe(0);
    expect(partition.rows.get('a')).toBe(row);
    expect(collectionsFromState(state)).toEqual({ products: { ws_1: { a: row } } });
  });

  it.each([
    [null, 'bad: "collections" is not an object'],
    [[], 'bad: "collections" is not an object'],
    [{ products: [] }, 'bad: collections["products"] is not an object'],
    [{ products: { ws_1: 'x' } }, 'bad: collections["products"]["ws_1"] is not an object'],
    [{ products: { ws_1: { a: 'x' } } }, 'bad: collections["products"]["ws_1"]["a"] is not an object'],
    [{ products: { ws_1: { a: { id: 'b' } } } }, 'bad: collections["products"]["ws_1"]["a"] has id "b" (must equal its key)'],
    [{ products: { ws_1: { a: {} } } }, 'bad: collections["products"]["ws_1"]["a"] has id undefined (must equal its key)'],
  ])('refuses %j', (collections, message) => {
    expect(() => stateFromCollections(collections, 1, error)).toThrow(message);
  });

  it('partitionsFrom validates one collection', () => {
    expect(() => partitionsFrom('c', null, 1, error)).toThrow('bad: collections["c"] is not an object');
    expect([...partitionsFrom('c', { w: { a: { id: 'a' } }, v: {} }, 3, error).keys()]).toEqual(['w']);
  });

  it('collectionsFromState leaves out empty partitions and collections, and keeps ids like __proto__', () => {
    const state: State = new Map();
    applyOps(state, [put('__proto__', { n: 1 }), put('a', {}, 'bookings'), put('b', {}, 'bookings', 'ws_2')], 1);
    applyOps(state, [del('a', 'bookings')], 2);
    const collections = collectionsFromState(state);
    expect(Object.keys(collections)).toEqual(['products', 'bookings']);
    expect(Object.keys(collections.bookings!)).toEqual(['ws_2']);
    expect(Object.getOwnPropertyNames(collections.products!.ws_1)).toEqual(['__proto__']);
    applyOps(state, [del('b', 'bookings', 'ws_2')], 3);
    expect(Object.keys(collectionsFromState(state))).toEqual(['products']);
  });

  it('captureState marks and lists only partitions with rows', () => {
    const state: State = new Map();
    applyOps(state, [put('a'), put('b', {}, 'bookings'), put('c', {}, 'bookings', 'ws_2')], 1);
    applyOps(state, [del('b', 'bookings')], 2);
    const captured = captureState(state, 4);
    expect(captured.map(([c, ps]) => [c, ps.map(([w]) => w)])).toEqual([
      ['products', ['ws_1']],
      ['bookings', ['ws_2']],
    ]);
    expect(state.get('bookings')!.get('ws_1')!.sharedGen).toBe(0);
    expect(state.get('bookings')!.get('ws_2')!.sharedGen).toBe(4);
    applyOps(state, [del('c', 'bookings', 'ws_2')], 3);
    expect(captureState(state, 5).map(([c]) => c)).toEqual(['products']);
  });

  it('an empty snapshot is at seq 0 of the current schema', () => {
    expect(emptySnapshot()).toEqual({ schemaVersion: SCHEMA_VERSION, seq: 0, collections: {} });
    expect(emptySnapshot()).not.toBe(emptySnapshot());
  });
});
