import { appendPosting, eachPosting, lastPosting, postingCount, type Postings } from './postings.ts';

/**
 * Substring search over one short text per row, at a cost that follows the
 * matches, not the rows (src/resources/bookings/search-text.ts keeps one per
 * workspace). The `q` of GET /v1/bookings is a substring test of one lower-cased text per
 * booking (API description, "Bookings": q searches the code and the customer's
 * name and e-mail); a scan of 100k texts took ~8 ms a search.
 *
 * Each text gets a slot; each distinct trigram of the text (every 3 code units
 * of the text padded with two NULs, so that every code unit starts one) lists
 * the slots whose text holds it. A query of 3 or more code units takes its
 * rarest trigram's list as candidates; a query of 1 or 2 takes every trigram
 * that starts with it. Every candidate is then tested with `includes`
 * against its text, so the answer is exactly what a scan gives: the postings
 * only narrow it.
 *
 * Slots are never reused: a changed text gets a new slot and the old one is
 * marked dead (skipped at query time), so lists stay ascending and a slot is in
 * a list at most once. Past half dead the structure is rebuilt compactly.
 *
 * Memory: the lists are kept compact (postings.ts).
 *
 * Trigrams rather than tokens or a suffix array: `q` matches inside words and
 * across the fields' separators (`ann lee`, `lee@exa`), which a token index
 * answers only through a second index over the distinct tokens (booking codes
 * make those as many as the rows); a suffix array is smaller to query but must
 * be rebuilt or patched at every write, while trigram lists are appended to.
 */
const PAD = '\0\0';

/**
 * A trigram as a Map key: three code units below 1024 (lower-cased Latin text) packed in a
 * small integer, which costs no string per trigram met while indexing; others as the string.
 */
type Gram = number | string;

/** The trigram at `i` of `text` padded with two NULs (read in place: no padded copy of each text). */
function gramAt(text: string, i: number): Gram {
  const a = text.charCodeAt(i);
  const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
  const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
  return a < 1024 && b < 1024 && c < 1024 ? (a << 20) | (b << 10) | c : (text.slice(i, i + 3) + PAD).slice(0, 3);
}

export class TextGrams {
  /** dead slots tolerated before a rebuild, at least (tests make it tiny) */
  static COMPACT_AFTER = 4096;

  /** slot -> row id, undefined once the slot is dead */
  #ids: (string | undefined)[] = [];
  /** slot -> text ('' once dead) */
  #texts: string[] = [];
  #slotOf = new Map<string, number>();
  #grams = new Map<Gram, Postings>();
  /** first one and first two code units -> the trigrams starting with them (queries shorter than 3) */
  #byPrefix = new Map<string, Gram[]>();
  #dead = 0;

  get size(): number {
    return this.#slotOf.size;
  }

  /** The text kept for the row, if any. */
  text(id: string): string | undefined {
    const slot = this.#slotOf.get(id);
    return slot === undefined ? undefined : this.#texts[slot];
  }

  /** Sets the row's text (nothing to do when it is unchanged: a booking's status moving keeps it). */
  set(id: string, text: string): void {
    const slot = this.#slotOf.get(id);
    if (slot !== undefined) {
      if (this.#texts[slot] === text) return;
      this.#kill(slot);
    }
    this.#add(id, text);
    this.#maybeCompact();
  }

  delete(id: string): void {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return;
    this.#kill(slot);
    this.#slotOf.delete(id);
    this.#maybeCompact();
  }

  /** Ids of the rows whose text includes `q`, in slot order (the caller sorts). */
  matching(q: string): string[] {
    const out: string[] = [];
    const texts = this.#texts;
    const ids = this.#ids;
    if (q.length === 0) {
      for (const id of ids) if (id !== undefined) out.push(id);
      return out;
    }
    if (q.length >= 3) {
      let rarest: Postings | undefined;
      for (let i = 0; i + 3 <= q.length; i++) {
        const list = this.#grams.get(gramAt(q, i));
        if (list === undefined) return out;
        if (rarest === undefined || postingCount(list) < postingCount(rarest)) rarest = list;
      }
      eachPosting(rarest!, (slot) => {
        const id = ids[slot];
        if (id !== undefined && texts[slot]!.includes(q)) out.push(id);
      });
      return out;
    }
    // 1 or 2 code units: every trigram starting with them; a slot can be in several lists
    const seen = new Uint8Array(ids.length);
    for (const gram of this.#byPrefix.get(q) ?? []) {
      eachPosting(this.#grams.get(gram)!, (slot) => {
        const id = ids[slot];
        if (id === undefined || seen[slot]) return;
        seen[slot] = 1;
        if (texts[slot]!.includes(q)) out.push(id);
      });
    }
    return out;
  }

  #add(id: string, text: string): void {
    const slot = this.#ids.length;
    this.#ids.push(id);
    this.#texts.push(text);
    this.#slotOf.set(id, slot);
    for (let i = 0; i < text.length; i++) {
      const gram = gramAt(text, i);
      const list = this.#grams.get(gram);
      if (list === undefined) {
        this.#grams.set(gram, slot);
        this.#prefix(text.slice(i, i + 1), gram);
        this.#prefix((text.slice(i, i + 2) + PAD).slice(0, 2), gram);
      } else if (lastPosting(list) !== slot) {
        // (a trigram met again in the same text is already listed: slots only grow)
        const grown = appendPosting(list, slot);
        if (grown !== list) this.#grams.set(gram, grown);
      }
    }
  }

  #prefix(prefix: string, gram: Gram): void {
    const grams = this.#byPrefix.get(prefix);
    if (grams) grams.push(gram);
    else this.#byPrefix.set(prefix, [gram]);
  }

  #kill(slot: number): void {
    this.#ids[slot] = undefined;
    this.#texts[slot] = '';
    this.#dead++;
  }

  /** Past half dead (and a few thousand), rebuilt from the live rows: O(live texts), amortised over the writes that killed them. */
  #maybeCompact(): void {
    if (this.#dead < TextGrams.COMPACT_AFTER || this.#dead < this.#slotOf.size) return;
    const live: [string, string][] = [];
    this.#ids.forEach((id, slot) => id !== undefined && live.push([id, this.#texts[slot]!]));
    this.#ids = [];
    this.#texts = [];
    this.#slotOf.clear();
    this.#grams.clear();
    this.#byPrefix.clear();
    this.#dead = 0;
    for (const [id, text] of live) this.#add(id, text);
  }
}
