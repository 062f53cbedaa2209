/**
 * The trigram index of the `q` search (src/core/text-grams.ts)
 * answers exactly what a scan of the texts with `includes` gives, for queries
 * of any length (1 and 2 code units through the prefix lists), with NULs, new
 * lines and code units past the packed-integer keys, under sets, changes,
 * deletes and rebuilds; and the compact posting lists (postings.ts) give back
 * what was appended, in every form.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyRuns } from '../setup/depth.ts';
import { appendPosting, eachPosting, lastPosting, postingCount, type Postings } from '../../src/core/postings.ts';
import { TextGrams } from '../../src/core/text-grams.ts';

const COMPACT_AFTER = TextGrams.COMPACT_AFTER;
afterEach(() => {
  TextGrams.COMPACT_AFTER = COMPACT_AFTER;
});

/** mostly two letters, so that texts repeat and share trigrams and queries match often; \n separates fields; ж and İ are past 1023 */
const char = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b') },
  { weight: 3, arbitrary: fc.constantFrom('c', '-', '\n', '@') },
  { weight: 1, arbitrary: fc.constantFrom('\0', 'ж', 'İ') },
);
const text = fc.array(char, { maxLength: 14 }).map((cs) => cs.join(''));
const query = fc.array(char, { minLength: 1, maxLength: 5 }).map((cs) => cs.join(''));
const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 25 }), text }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 25 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('match' as const), q: query }) },
);

describe('TextGrams', () => {
  it.each([1, 4096])('matches what a scan of every text with includes matches (rebuilt past %i dead)', (compactAfter) => {
    TextGrams.COMPACT_AFTER = compactAfter;
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 120 }), (steps) => {
        const grams = new TextGrams();
        const model = new Map<string, string>();
        for (const s of steps) {
          if (s.kind === 'set') {
            grams.set(`r${s.id}`, s.text);
            model.set(`r${s.id}`, s.text);
          } else if (s.kind === 'delete') {
            grams.delete(`r${s.id}`);
            model.delete(`r${s.id}`);
          } else {
            const expected = [...model].filter(([, t]) => t.includes(s.q)).map(([id]) => id);
            expect(grams.matching(s.q).sort(), JSON.stringify(s.q)).toEqual(expected.sort());
          }
          expect(grams.size).toBe(model.size);
        }
        for (const [id, t] of model) expect(grams.text(id)).toBe(t);
        expect(grams.matching('').sort()).toEqual([...model.keys()].sort());
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe('posting lists', () => {
  it('give back every slot appended, ascending, as a number, an array or varint bytes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 300 }), (slots) => {
        slots.sort((a, b) => a - b);
        let list: Postings = slots[0]!;
        for (const slot of slots.slice(1)) list = appendPosting(list, slot);
        const back: number[] = [];
        eachPosting(list, (slot) => back.push(slot));
        expect(back).toEqual(slots);
        expect(postingCount(list)).toBe(slots.length);
        expect(lastPosting(list)).toBe(slots.at(-1));
      }),
      { numRuns: propertyRuns(200) },
    );
    // dense slots (gaps of 1: one byte each)
    let list: Postings = 0;
    for (let slot = 1; slot < 5000; slot++) list = appendPosting(list, slot);
    expect(list).toBeInstanceOf(Uint8Array);
    expect((list as Uint8Array).length).toBeLessThan(5000 * 1.3 + 64);
    expect(postingCount(list)).toBe(5000);
  });
});
