/**
 * Rows a caller gives to the store (CommitOptions.rowsGiven): built for the
 * commit and never touched again by the caller, so the store may keep the
 * objects themselves instead of a JSON copy (codec.ts, prepareOps). A seed
 * commits tens of thousands of rows it has just built, and the copy (a
 * stringify and a parse of each row) was a quarter of what a seed allocated
 * (the young-generation collections that stalled health beside a CPU
 * hog; docs/storage.md "Memory per row").
 *
 * A given row is kept only if it is already what its JSON copy would be, so
 * what is in memory is still exactly what is on disk; anything else is copied
 * as before.
 */

/** At most this deep: a deeper value is copied (as JSON) rather than walked further. */
const MAX_DEPTH = 32;

/**
 * True when `value` equals its own JSON round trip: only plain objects (no
 * prototype but Object's), arrays without holes, strings, booleans, null and
 * finite numbers other than -0, nothing undefined, at most MAX_DEPTH deep (a
 * cycle is then copied, and JSON refuses it as it always did). Symbol-keyed
 * and non-enumerable properties are not looked for: a given row is plain data
 * by contract (object literals).
 */
export function isJsonData(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      break;
    default:
      return false; // undefined, a function, a symbol, a bigint
  }
  if (value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !isJsonData(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false; // a Date, a Map, a class: JSON changes it
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (key === '__proto__' || !isJsonData(record[key], depth + 1)) return false;
  }
  return true;
}
