/**
 * An ascending list of slot numbers (the rows holding one trigram, text-grams.ts),
 * in the form that costs least for its length (measured at 30k seeded bookings:
 * 38k distinct trigrams, two thirds of them in 8 texts or fewer, mostly booking
 * codes; 72 in over 1,000 texts hold 40% of all postings):
 *
 * - one slot: the number itself (no allocation);
 * - up to SHORT slots: a plain array of exactly that length (a push would
 *   grow it to 17 elements of 8 bytes);
 * - longer: a Uint8Array of gaps between slots as varints (1-2 bytes a
 *   slot rather than 4 or 8), behind a 12-byte header: bytes used, last
 *   slot, count (little-endian uint32s). Read front to back only.
 *
 * Slots must be appended in ascending order (text-grams.ts never reuses one).
 */
export type Postings = number | number[] | Uint8Array;

const SHORT = 16;
const HEADER = 12;

export function postingCount(list: Postings): number {
  if (typeof list === 'number') return 1;
  if (Array.isArray(list)) return list.length;
  return read32(list, 8);
}

/** The highest slot in the list. */
export function lastPosting(list: Postings): number {
  if (typeof list === 'number') return list;
  if (Array.isArray(list)) return list[list.length - 1]!;
  return read32(list, 4);
}

/** Visits every slot in ascending order. */
export function eachPosting(list: Postings, visit: (slot: number) => void): void {
  if (typeof list === 'number') return visit(list);
  if (Array.isArray(list)) {
    for (const slot of list) visit(slot);
    return;
  }
  const end = read32(list, 0);
  let slot = 0;
  for (let at = HEADER; at < end; ) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = list[at++]!;
      gap += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    slot += gap;
    visit(slot);
  }
}

/** The list with `slot` appended (above every slot in it): the same object when it had room, else a new one. */
export function appendPosting(list: Postings, slot: number): Postings {
  if (typeof list === 'number') return [list, slot];
  if (Array.isArray(list)) {
    if (list.length < SHORT) return list.concat(slot);
    let long: Uint8Array = new Uint8Array(HEADER + 2 * SHORT * 2);
    write32(long, 0, HEADER);
    for (const each of list) long = appendGap(long, each);
    return appendGap(long, slot);
  }
  return appendGap(list, slot);
}

function appendGap(list: Uint8Array, slot: number): Uint8Array {
  const used = read32(list, 0);
  const count = read32(list, 8);
  let gap = count === 0 ? slot : slot - read32(list, 4);
  let out = list;
  if (used + 5 > list.length) {
    out = new Uint8Array(Math.ceil(list.length * 1.25) + 8);
    out.set(list.subarray(0, used));
  }
  let at = used;
  while (gap >= 0x80) {
    out[at++] = (gap & 0x7f) | 0x80;
    gap = Math.floor(gap / 0x80);
  }
  out[at++] = gap;
  write32(out, 0, at);
  write32(out, 4, slot);
  write32(out, 8, count + 1);
  return out;
}

const read32 = (bytes: Uint8Array, at: number): number => (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) + bytes[at + 3]! * 0x1000000;

function write32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value & 0xff;
  bytes[at + 1] = (value >>> 8) & 0xff;
  bytes[at + 2] = (value >>> 16) & 0xff;
  bytes[at + 3] = (value >>> 24) & 0xff;
}
