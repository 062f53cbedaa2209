/**
 * Pages whose rows are still spans of a file's bytes (a file opened with its rows unparsed,
 * snapshot-scan.ts), and their deflating in zlib's thread pool. packed-pages.ts holds
 * them among its pages until the background puts the deflated bytes in their place.
 */
import { deflateRaw, deflateRawSync } from 'node:zlib';
import { keep } from './page-arena.ts';
import { idHash } from './page-index.ts';
import type { RawRows } from './snapshot-scan.ts';

/**
 * A page whose rows are `rows.source[rowStarts[i], rowEnds[i])` for i in [from, to). Its text is
 * built from them when read, and it is deflated in the background; then `deflated` is set and
 * `rows` let go (the file's bytes are freed once no page needs them). Shared by copies: the
 * first to deflate it does so for all.
 */
export class RawPage {
  deflated: Buffer | null = null;
  constructor(
    public rows: RawRows | null,
    readonly from: number,
    readonly to: number,
  ) {}
}

/**
 * Pages of a file's bytes waiting to be deflated, oldest first (held weakly: a page of a store
 * replaced meanwhile is skipped), and how many zlib's thread pool is deflating now. Deflating
 * ~37,000 pages of 100k bookings is ~5 s of CPU: in the thread pool it runs beside the event
 * loop, on the second core where there is one. At most two at once, so that the pool (4 threads,
 * shared with the file system) always has a thread for a journal write or an fsync.
 */
const waiting: ([WeakRef<RawPage>, Buffer] | undefined)[] = [];
let waitingHead = 0;
let deflating = 0;
const DEFLATING_AT_ONCE = 2;

export function deflateLater(page: RawPage, dictionary: Buffer): void {
  waiting.push([new WeakRef(page), dictionary]);
  deflateWaiting();
}

function deflateWaiting(): void {
  while (deflating < DEFLATING_AT_ONCE && waitingHead < waiting.length) {
    const [ref, dictionary] = waiting[waitingHead]!;
    waiting[waitingHead++] = undefined;
    const page = ref.deref();
    if (page === undefined || page.deflated !== null) continue;
    const text = rawText(page);
    deflating++;
    deflateRaw(text, { level: 6, dictionary }, (err, deflated) => {
      deflating--;
      // (an error here would be zlib's own: the page is then deflated on the event loop)
      page.deflated = keep(err ? deflateRawSync(text, { level: 6, dictionary }) : deflated);
      page.rows = null;
      deflateWaiting();
    });
  }
  if (waitingHead === waiting.length) {
    waiting.length = 0;
    waitingHead = 0;
  }
}

/** A page's text, `[row,\nrow,...]`, from the spans of the file's bytes. */
export function rawText(page: RawPage): Buffer {
  const { source, rowStarts, rowEnds } = page.rows!;
  let length = 2 + 2 * (page.to - page.from - 1);
  for (let i = page.from; i < page.to; i++) length += rowEnds[i]! - rowStarts[i]!;
  const text = Buffer.allocUnsafe(length);
  text[0] = 0x5b; // [
  let at = 1;
  for (let i = page.from; i < page.to; i++) {
    if (i > page.from) at += text.write(',\n', at, 'latin1');
    at += source.copy(text, at, rowStarts[i]!, rowEnds[i]!);
  }
  text[at] = 0x5d; // ]
  return text;
}

/** idHash of row i's key, from its bytes (plain ASCII, as ids are) or else from the parsed key. */
export function rawIdHash(raw: RawRows, i: number): number {
  const { source } = raw;
  const start = raw.keyStarts[i]! + 1;
  const end = raw.keyEnds[i]! - 1;
  let h = 0x811c9dc5;
  for (let k = start; k < end; k++) {
    const c = source[k]!;
    if (c === 0x5c || c >= 0x80) return idHash(JSON.parse(source.toString('utf8', start - 1, end + 1)) as string);
    h ^= c;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
