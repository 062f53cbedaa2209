import { describe, expect, it } from 'vitest';
import { concatView } from '../../src/control/seed.ts';
import { sampleDistinct } from '../../src/fixtures/sample.ts';

/** A chunk's people pool is a view of its new people then the workspace's, not a copy. */
describe('concatView', () => {
  it('reads as head then tail, by index, length, iteration and sampling, without copying the tail', () => {
    const tail = ['c', 'd', 'e'];
    const view = concatView(['a', 'b'], tail);
    expect(view.length).toBe(5);
    expect([view[0], view[1], view[2], view[4], view[5]]).toEqual(['a', 'b', 'c', 'e', undefined]);
    expect([...view]).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(4 in view && !(5 in view)).toBe(true);
    // the same draws as on a copied array
    const draws = (items: readonly string[]) => {
      let x = 0.137;
      return sampleDistinct(items, 3, () => (x = (x * 9301 + 0.49297) % 1));
    };
    expect(draws(view)).toEqual(draws(['a', 'b', 'c', 'd', 'e']));
    tail.push('f'); // a view, not a copy
    expect(view.length).toBe(6);
    expect(view[5]).toBe('f');
  });

  it('is read-only, so the state it views cannot be changed through it', () => {
    const tail = ['c'];
    const view = concatView(['a'], tail);
    expect(() => {
      view[1] = 'x';
    }).toThrow(TypeError);
    expect(tail).toEqual(['c']);
  });

  it('is the tail itself when there is no head', () => {
    const tail = ['c'];
    expect(concatView([], tail)).toBe(tail);
  });
});
