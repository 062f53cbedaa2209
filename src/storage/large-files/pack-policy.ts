/**
 * What packing is for and when it applies (packed-rows.ts): the Map interface a
 * partition's rows keep, and the limits. Which collections may be packed is
 * declared with each collection (`packed`, collection.ts).
 */
import type { Row } from '../types.ts';

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
