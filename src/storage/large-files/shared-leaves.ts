/**
 * One frozen copy of each small nested object or array that many rows repeat
 * (docs/storage.md "Memory per row"). Every committed row is a
 * private JSON copy (codec.ts, prepareOps), so each booking had its own `{}`
 * for `metadata`, each passenger its own `{"paxType":"adult"}`, and each
 * pricing line (`{code, description, quantity, unitAmount, amount}`) and its
 * array was made again for every booking of the same departure: in a heap with
 * 20k seeded bookings those copies were about 7 MiB of 52 (56 bytes for an
 * empty object, 32 for `{paxType}`, 64 for a line).
 *
 * Rows are immutable once committed (the store's rule: callers never mutate
 * what they read), so rows may share a nested value that is equal by value;
 * the shared values are frozen, so a caller that breaks the rule fails loudly
 * instead of changing other rows. The row object itself is never shared.
 *
 * What is shared: a nested object or array whose values are all primitives or
 * shared values themselves (so a line array of shared lines is shared too),
 * with at most MAX_ITEMS keys or items and a JSON text of at most
 * SHARED_LEAF_MAX_JSON characters. The table is keyed by a hash of that text,
 * not the text itself (a key string cost more than most shares save), and a
 * hit is taken only if it is equal: the same keys in the same order, each
 * value identical (children are shared copies, strings compare by value), so
 * the row reads and serialises exactly as written. It is bounded like the
 * string table (intern.ts): two generations of `capacity` entries.
 */
import { Generations, StringInterner } from './intern.ts';

export const SHARED_LEAF_MAX_JSON = 512;
const MAX_ITEMS = 16;

export class RowInterner {
  readonly strings: StringInterner;
  readonly #leaves: Generations<number, object>;

  constructor(stringCapacity = 20_000, leafCapacity = 4_096) {
    this.strings = new StringInterner(stringCapacity);
    this.#leaves = new Generations(leafCapacity);
  }

  /** Leaf entries held (both generations; at most twice the capacity). */
  get leaves(): number {
    return this.#leaves.size;
  }

  /**
   * Replaces, in place, the strings and small nested values of a freshly
   * parsed row (JSON.parse output that nobody else holds yet) by their shared
   * copies. The row itself stays a private, unfrozen object.
   */
  internRow(row: Record<string, unknown>): void {
    for (const key in row) row[key] = this.#value(row[key]);
  }

  #value(value: unknown): unknown {
    if (typeof value === 'string') return this.strings.intern(value);
    if (value === null || typeof value !== 'object') return value;
    let leafy = true;
    let count = 0;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item = (value[i] = this.#value(value[i]));
        if (leafy && item !== null && typeof item === 'object' && !Object.isFrozen(item)) leafy = false;
      }
      count = value.length;
    } else {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        const item = (record[key] = this.#value(record[key]));
        if (leafy && item !== null && typeof item === 'object' && !Object.isFrozen(item)) leafy = false;
        count++;
      }
    }
    if (!leafy || count > MAX_ITEMS) return value;
    const text = JSON.stringify(value);
    if (text.length > SHARED_LEAF_MAX_JSON) return value;
    const hash = fnv1a(text);
    const shared = this.#leaves.get(hash);
    if (shared !== undefined) return sameLeaf(shared, value) ? shared : value; // a collision: kept private
    this.#leaves.set(hash, Object.freeze(value));
    return value;
  }
}

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Equal as JSON: both arrays or both objects, the same keys in the same order, each value identical. */
export function sameLeaf(a: object, b: object): boolean {
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (let i = 0; i < aKeys.length; i++) {
    const key = aKeys[i]!;
    if (key !== bKeys[i] || (a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return false;
  }
  return true;
}
