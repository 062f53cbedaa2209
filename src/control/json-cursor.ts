import { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringEnd } from '../storage/index.ts';
import { badRequest, type ApiError } from '../core/errors.ts';

/**
 * A walk over a JSON document held as bytes (UTF-8), one value at a time, for
 * a body too large to parse in one go (PUT /__sandbox/state: state-reader.ts).
 * It finds where each value starts and ends; JSON.parse of that slice checks
 * and decodes it (the byte rules: src/storage/json-bytes.ts).
 */

const WHITESPACE = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WHITESPACE[c] = 1;

/** The documented 400 for a body that is not JSON; where it breaks goes in the reason. */
export const malformed = (problem: string, at: number): ApiError =>
  badRequest('MALFORMED_JSON', 'Malformed JSON body').because('MALFORMED_JSON', `${problem} at byte ${at} of the body`);

export class JsonCursor {
  /** where the next token is looked for */
  at = 0;

  constructor(readonly bytes: Buffer) {}

  /** the next byte that is not whitespace (without taking it), or -1 at the end */
  peek(): number {
    const b = this.bytes;
    let i = this.at;
    while (i < b.length && WHITESPACE[b[i]!]) i++;
    this.at = i;
    return i < b.length ? b[i]! : -1;
  }

  atEnd(): boolean {
    return this.peek() === -1;
  }

  take(byte: number, what: string): void {
    if (this.peek() !== byte) throw malformed(`expected ${what}`, this.at);
    this.at++;
  }

  /** `{` taken when the next value is an object; false (nothing taken) when it is something else */
  openObject(): boolean {
    if (this.peek() !== OPEN_OBJECT) return false;
    this.at++;
    return true;
  }

  /**
   * Between the members of an object: true when another member follows (its comma taken),
   * false when the object ends (its `}` taken). `first`: right after the `{`.
   */
  nextMember(first: boolean): boolean {
    const next = this.peek();
    if (next === CLOSE_OBJECT) {
      this.at++;
      return false;
    }
    if (!first) {
      if (next !== COMMA) throw malformed('expected , or }', this.at);
      this.at++;
    }
    return true;
  }

  /** a member's key and its colon */
  key(): string {
    if (this.peek() !== QUOTE) throw malformed('expected a key in double quotes', this.at);
    const start = this.at;
    const end = this.#stringEnd(start);
    this.at = end;
    this.take(COLON, ':');
    return this.#parse(start, end) as string;
  }

  /** the next value's text, [start, end) in the bytes, skipped over (not checked: parse it) */
  skipValue(): [number, number] {
    const start = this.at;
    if (start >= this.bytes.length) throw malformed('expected a value', start);
    const end = this.#valueEnd(start);
    this.at = end;
    return [start, end];
  }

  /** the next value, parsed */
  value(): unknown {
    this.peek();
    const [start, end] = this.skipValue();
    return this.#parse(start, end);
  }

  /** JSON.parse of [start, end): a row, checked and decoded by V8 */
  parse(start: number, end: number): unknown {
    return this.#parse(start, end);
  }

  #parse(start: number, end: number): unknown {
    try {
      return JSON.parse(this.bytes.toString('utf8', start, end));
    } catch (err) {
      throw malformed(err instanceof Error ? err.message.split('\n')[0]!.replace(/ in JSON at position \d+.*$/, '') : 'not JSON', start);
    }
  }

  #stringEnd(start: number): number {
    const end = stringEnd(this.bytes, start);
    if (end < 0) throw malformed('a string is not closed', start);
    return end;
  }

  #valueEnd(start: number): number {
    const b = this.bytes;
    const first = b[start]!;
    if (first === QUOTE) return this.#stringEnd(start);
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      // brackets counted, strings jumped over; a mismatch such as {] is JSON.parse's to find
      let depth = 0;
      for (let i = start; i < b.length; i++) {
        const c = b[i]!;
        if (c === QUOTE) i = this.#stringEnd(i) - 1;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
        else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
      }
      throw malformed('an object or array is not closed', start);
    }
    let i = start;
    while (i < b.length && !WHITESPACE[b[i]!] && b[i] !== COMMA && b[i] !== CLOSE_OBJECT && b[i] !== CLOSE_ARRAY) i++;
    if (i === start) throw malformed('expected a value', start);
    return i;
  }
}
