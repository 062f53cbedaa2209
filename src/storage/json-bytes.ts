/**
 * JSON read as bytes, for the two scanners that find where values start and
 * end without parsing them: the snapshot scan at open (large-files/snapshot-scan.ts) and
 * the sliced state import (src/control/json-cursor.ts). Every byte that ends a
 * string, an object or an array is ASCII, and no byte of a multi-byte UTF-8
 * character is, so bytes are enough.
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const NEWLINE = 0x0a;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

/** The index after the string whose opening quote is at `at`, or -1 when it is not closed. */
export function stringEnd(b: Buffer, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = b.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    let slashes = 0;
    for (let k = quote - 1; b[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
