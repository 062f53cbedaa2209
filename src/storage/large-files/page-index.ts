/**
 * Which page holds an id, for a packed partition (packed-rows.ts), without
 * keeping the id strings: a typed open-addressing table of (hash, page) pairs,
 * ~12 bytes per row instead of the ~90 of a Map entry and its key. A hash
 * only names candidates; the caller confirms by looking in the page, so
 * collisions cost a page read, never a wrong answer.
 */
const EMPTY = 0;
/** linear probing stays short up to here (~2.5 probes per hit at 0.7) */
const MAX_LOAD = 0.7;
const REMOVED = -1;

/** FNV-1a over UTF-16 code units: ids are short ASCII strings. */
export function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class PageIndex {
  #hashes: Uint32Array;
  /** page + 1; EMPTY or REMOVED */
  #pages: Int32Array;
  /** slots not EMPTY (live and removed): probing stops only at EMPTY */
  #occupied = 0;
  #live = 0;

  constructor(capacity = 1024, from?: { hashes: Uint32Array; pages: Int32Array; occupied: number; live: number }) {
    if (from) {
      this.#hashes = from.hashes;
      this.#pages = from.pages;
      this.#occupied = from.occupied;
      this.#live = from.live;
      return;
    }
    let size = 64;
    while (size * MAX_LOAD < capacity) size *= 2;
    this.#hashes = new Uint32Array(size);
    this.#pages = new Int32Array(size);
  }

  get size(): number {
    return this.#live;
  }

  add(hash: number, page: number): void {
    if (this.#occupied + 1 > this.#pages.length * MAX_LOAD) this.#grow();
    const mask = this.#pages.length - 1;
    let slot = hash & mask;
    while (this.#pages[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.#hashes[slot] = hash;
    this.#pages[slot] = page + 1;
    this.#occupied++;
    this.#live++;
  }

  /** The first candidate page for `hash` that `holds` accepts, or -1. */
  find(hash: number, holds: (page: number) => boolean): number {
    const mask = this.#pages.length - 1;
    for (let slot = hash & mask; this.#pages[slot] !== EMPTY; slot = (slot + 1) & mask) {
      const page = this.#pages[slot]! - 1;
      if (page >= 0 && this.#hashes[slot] === hash && holds(page)) return page;
    }
    return -1;
  }

  /** Forgets one (hash, page) pair; true when it was there. */
  remove(hash: number, page: number): boolean {
    const mask = this.#pages.length - 1;
    for (let slot = hash & mask; this.#pages[slot] !== EMPTY; slot = (slot + 1) & mask) {
      if (this.#hashes[slot] === hash && this.#pages[slot] === page + 1) {
        this.#pages[slot] = REMOVED;
        this.#live--;
        return true;
      }
    }
    return false;
  }

  copy(): PageIndex {
    return new PageIndex(0, { hashes: this.#hashes.slice(), pages: this.#pages.slice(), occupied: this.#occupied, live: this.#live });
  }

  #grow(): void {
    const hashes = this.#hashes;
    const pages = this.#pages;
    // removed slots are dropped; a table mostly of them is rebuilt at the same size
    const size = this.#live > pages.length * MAX_LOAD * 0.5 ? pages.length * 2 : pages.length;
    this.#hashes = new Uint32Array(size);
    this.#pages = new Int32Array(size);
    this.#occupied = 0;
    this.#live = 0;
    for (let slot = 0; slot < pages.length; slot++) {
      if (pages[slot]! > 0) this.add(hashes[slot]!, pages[slot]! - 1);
    }
  }
}
