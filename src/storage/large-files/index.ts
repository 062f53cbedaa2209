/**
 * The large-file tier: what keeps a database of 100k bookings small in memory
 * and quick to open (docs/storage.md, "Map: two rooms and one door"). The engine's core
 * (the files of src/storage/ above this folder) reaches it only through this
 * module:
 *
 * - packed partitions: a large partition of a collection declared `packed`
 *   (collection.ts) keeps most of its rows as deflated pages of JSON lines
 *   (packed-rows.ts, with its pages, page index, walks and arena; the limits in
 *   pack-policy.ts), packed as it grows or in the background
 *   (background-packing.ts);
 * - opening a large file: its big partitions are cut into pages straight from
 *   the file's bytes, never parsed (snapshot-scan.ts, raw-pages.ts);
 * - one copy of repeated strings and small values among rows (intern.ts,
 *   shared-leaves.ts).
 */
export { noteForegroundWrite, packedInBackground } from './background-packing.ts';
export { DEFAULT_PACK_LIMITS, packLimits, setPackLimits, type PackLimits, type RowMap } from './pack-policy.ts';
export { copyRows, PackedRows, packIfLarge } from './packed-rows.ts';
export { RowInterner } from './shared-leaves.ts';
export { isRawRows, scanSnapshot } from './snapshot-scan.ts';
