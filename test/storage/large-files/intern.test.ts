import { describe, expect, it } from 'vitest';
import { INTERN_MAX_LENGTH, INTERN_MIN_LENGTH, StringInterner } from '../../../src/storage/large-files/intern.ts';
import { RowInterner } from '../../../src/storage/large-files/shared-leaves.ts';
import { openStore } from '../../../src/storage/index.ts';

/** Repeated ids and timestamps are kept once in memory (src/storage/large-files/intern.ts). */
describe('StringInterner', () => {
  it('changes no value: nested objects, arrays, odd keys, non-strings', () => {
    const parsed = JSON.parse(
      JSON.stringify({
        id: 'book_788edf21-a80c-4fd7-a234-491214d6baac',
        __proto__x: 'not a prototype',
        nested: { at: '2026-11-21T06:04:26.000Z', lines: [{ code: 'ext:photo-package', n: 1 }, 'pkg_0123456789abcdef', null, 3] },
        short: 'ok',
        long: 'x'.repeat(INTERN_MAX_LENGTH + 1),
        flag: true,
      }),
    );
    const withProto = JSON.parse('{"__proto__":"book_788edf21-a80c-4fd7-a234-491214d6baac","id":"r1"}');
    const expected = structuredClone(parsed);
    const interner = new RowInterner(8);
    interner.internRow(parsed);
    interner.internRow(withProto);
    expect(parsed).toEqual(expected);
    expect(Object.getOwnPropertyDescriptor(withProto, '__proto__')?.value).toBe('book_788edf21-a80c-4fd7-a234-491214d6baac');
    expect(Object.getPrototypeOf(withProto)).toBe(Object.prototype);
  });

  it('remembers only strings of id and timestamp length', () => {
    const interner = new StringInterner();
    interner.intern('a'.repeat(INTERN_MIN_LENGTH - 1));
    interner.intern('b'.repeat(INTERN_MAX_LENGTH + 1));
    expect(interner.size).toBe(0);
    interner.intern('c'.repeat(INTERN_MIN_LENGTH));
    interner.intern('c'.repeat(INTERN_MIN_LENGTH));
    expect(interner.size).toBe(1);
  });

  it('stays bounded however many distinct strings pass (churn cannot grow it)', () => {
    const interner = new StringInterner(100);
    let most = 0;
    for (let i = 0; i < 1_000; i++) {
      interner.intern(`dlv_${String(i).padStart(36, '0')}`);
      most = Math.max(most, interner.size);
    }
    expect(most).toBeLessThanOrEqual(200);
  });
});

describe('the store with interned rows', () => {
  it('gives back exactly what was committed', async () => {
    const { store } = await openStore({});
    const at = '2026-11-21T06:05:26.000Z';
    const rows = Array.from({ length: 50 }, (_, i) => ({
      id: `psg_${i}`,
      bookingId: 'book_788edf21-a80c-4fd7-a234-491214d6baac',
      createdAt: at,
      extras: { paxType: 'adult', tags: ['one-more-tag', at] },
    }));
    await store.commit(rows.map((row) => ({ type: 'put' as const, collection: 'passengers', workspaceId: 'ws', row })));
    expect(store.list('passengers', 'ws')).toEqual(rows);
    await store.close();
  });
});
