/**
 * One copy of each repeated id and timestamp among the rows in memory
 * (docs/storage.md, "Memory per row"). Every row is stored as a private JSON copy
 * (codec.ts, prepareOps), and JSON.parse makes a new string for every value: a
 * booking's id comes back as a separate 41-character string in each of its
 * passengers and items, and so do the product, departure and person ids and the
 * timestamps they share. In a heap with 100k seeded bookings those copies were
 * about half of all string memory. Strings are immutable and compared by value,
 * so sharing one copy changes nothing a caller can see.
 *
 * The table is bounded: two generations of at most `capacity` entries; a hit
 * in the old one is carried into the new one, and when the new one is full the
 * old one is dropped. What a long-lived row uses again (its product's id) stays;
 * ids of rows long gone are forgotten, so churn (the delivery log) cannot grow it.
 */
export const INTERN_MIN_LENGTH = 11; // V8 already shares short values it parses
export const INTERN_MAX_LENGTH = 128; // ids, timestamps, codes, line descriptions; not long free text

/**
 * A bounded memo: two generations of at most `capacity` entries each; a hit in
 * the old one is carried into the new one, and when the new one is full the
 * old one is dropped. What is used again stays; the rest is forgotten.
 */
export class Generations<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: K, value: V): void {
    if (this.#young.size >= this.capacity) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }

  /** Entries held (both generations; at most twice the capacity). */
  get size(): number {
    return this.#young.size + this.#old.size;
  }
}

export class StringInterner {
  readonly #table: Generations<string, string>;

  constructor(readonly capacity = 50_000) {
    this.#table = new Generations(capacity);
  }

  /** The shared copy of `value` (the first one seen, while the table remembers it). */
  intern(value: string): string {
    if (value.length < INTERN_MIN_LENGTH || value.length > INTERN_MAX_LENGTH) return value;
    const shared = this.#table.get(value);
    if (shared !== undefined) return shared;
    this.#table.set(value, value);
    return value;
  }

  /** Entries held (both generations; at most twice the capacity). */
  get size(): number {
    return this.#table.size;
  }
}
