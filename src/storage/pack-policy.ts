/**
 * What packing is for and when it applies (packed-rows.ts): the Map interface a
 * partition's rows keep, the limits, and the collections that may be packed.
 */
import type { Row } from './types.ts';

/** What codec.ts needs of a partition's rows: a Map<string, Row>, or PackedRows. */
export interface RowMap extends Iterable<[string, Row]> {
  readonly size: number;
  get(id: string): Row | undefined;
  has(id: string): boolean;
  set(id: string, row: Row): this;
  delete(id: string): boolean;
  values(): IterableIterator<Row>;
  entries(): IterableIterator<[string, Row]>;
}

export interface PackLimits {
  /** a partition with more rows than this is packed */
  packAfter: number;
  /** rows kept as objects: the newest ones, and changed packed ones before they are folded back */
  hotRows: number;
  /** JSON text per page before compression */
  pageBytes: number;
}

export const DEFAULT_PACK_LIMITS: PackLimits = { packAfter: 4096, hotRows: 1024, pageBytes: 8192 };

let limits: PackLimits = DEFAULT_PACK_LIMITS;

/** The limits new packed partitions use (tests pack small partitions to exercise this path). */
export function setPackLimits(next: PackLimits): void {
  limits = next;
}

export function packLimits(): PackLimits {
  return limits;
}

export type PackMode = 'now' | 'on-insert' | 'background';

/**
 * Collections whose large partitions are packed: declared `packed` (collection.ts).
 * A list of a packed partition inflates every page (~1 s for 100k bookings), so
 * only the large collections of seeded volume are: those read by id or through
 * an index, and bookings (docs/storage.md "Packed partitions").
 */
const packable = new Set<string>();

export function allowPacking(collection: string): void {
  packable.add(collection);
}

export function packableCollection(collection: string): boolean {
  return packable.has(collection);
}
