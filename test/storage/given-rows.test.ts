import { describe, expect, it } from 'vitest';
import { prepareOps } from '../../src/storage/codec.ts';
import { isJsonData } from '../../src/storage/given-rows.ts';
import { openStore } from '../../src/storage/index.ts';
import type { Op, Row } from '../../src/storage/types.ts';
import { tempDir } from './helpers.ts';

/**
 * Rows given to a commit (CommitOptions.rowsGiven, src/storage/given-rows.ts):
 * kept as they are when they are plain JSON data, copied through
 * JSON otherwise, so that what is in memory is what is on disk either way.
 */
const put = (row: Record<string, unknown>): Op => ({ type: 'put', collection: 'products', workspaceId: 'ws_1', row: row as Row });
const rowOf = (op: Op | undefined) => (op as Extract<Op, { type: 'put' }>).row;

describe('isJsonData', () => {
  it('holds for plain data, and not for what JSON would change', () => {
    expect(isJsonData({ id: 'a', n: 1.5, ok: true, none: null, list: [1, 'x', { deep: [] }], nested: {} })).toBe(true);
    for (const changed of [undefined, NaN, Infinity, -0, new Date(0), new Map(), () => 1, 1n, Object.create(null), [undefined, 1]]) {
      expect(isJsonData({ id: 'a', v: changed })).toBe(false);
    }
    const cyclic: Record<string, unknown> = { id: 'a' };
    cyclic.self = cyclic;
    expect(isJsonData(cyclic)).toBe(false);
    expect(isJsonData(JSON.parse('{"__proto__":{"x":1}}'))).toBe(false);
  });
});

describe('prepareOps with rows given', () => {
  it('keeps a plain row as it is, and copies one that JSON would change', () => {
    const plain = { id: 'a', nested: { n: 1 } };
    const dated = { id: 'b', when: new Date(0), gone: undefined };
    const prepared = prepareOps([put(plain), put(dated)], false, () => false, true);
    expect(rowOf(prepared.ops[0])).toBe(plain);
    expect(rowOf(prepared.ops[1])).not.toBe(dated);
    expect(rowOf(prepared.ops[1])).toEqual({ id: 'b', when: '1970-01-01T00:00:00.000Z' });
  });

  it('writes the same journal text as a copy would', () => {
    const given = prepareOps([put({ id: 'a', list: [1, { x: 'y' }] })], true, () => true, true);
    const copied = prepareOps([put({ id: 'a', list: [1, { x: 'y' }] })], true);
    expect(given.opsJson).toBe(copied.opsJson);
  });

  it('refuses a cyclic row as before', () => {
    const cyclic: Record<string, unknown> = { id: 'a' };
    cyclic.self = cyclic;
    expect(() => prepareOps([put(cyclic)], false, () => true, true)).toThrow(/not JSON-serialisable/);
  });
});

describe('a file store given rows', () => {
  it('reopens to the rows it was given', async () => {
    const path = `${tempDir()}/db.json`;
    const rows = [
      { id: 'a', tags: ['x'], meta: {} },
      { id: 'b', total: { amount: 5 } },
    ];
    const first = await openStore({ path });
    await first.store.commit(
      rows.map((row) => put(row)),
      { rowsGiven: true },
    );
    expect(first.store.get('products', 'ws_1', 'a')).toBe(rows[0]);
    await first.store.close();
    const again = await openStore({ path });
    try {
      expect(again.store.list('products', 'ws_1')).toEqual([
        { id: 'a', tags: ['x'], meta: {} },
        { id: 'b', total: { amount: 5 } },
      ]);
    } finally {
      await again.store.close();
    }
  });
});
