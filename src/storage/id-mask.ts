import { randomBytes } from 'node:crypto';

/**
 * The id scheme of created workspaces (docs/architecture.md, "Workspaces on
 * demand"). A created workspace sees its template's rows with every id
 * rewritten by XOR-ing the UUID part with the workspace's own random 128-bit
 * mask: `prod_<uuid>` becomes `prod_<uuid ^ mask>`. The rewrite is a bijection
 * (applying it twice gives the id back), so a reference anywhere in a row
 * (bookings -> departures, products, people; items -> departures; org keys ->
 * productIds; workspace ids themselves) is rewritten consistently without
 * knowing the schema, and an id is found in the template by rewriting it back.
 * The mask keeps the version and variant nibbles, so ids stay valid v4 UUIDs;
 * with random masks, ids are as unique as random UUIDs.
 */
export type IdMask = Uint8Array;

const HEX = '0123456789abcdef';
const ID = /^(?:[a-z][a-z_]*_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** 32 random nibbles, with the UUID version (12) and variant (16) nibbles left alone. */
export function newMask(): string {
  const bytes = randomBytes(16);
  let hex = '';
  for (let i = 0; i < 32; i++) hex += i === 12 || i === 16 ? '0' : HEX[(bytes[i >> 1]! >> (i % 2 ? 0 : 4)) & 15];
  return hex;
}

export function parseMask(hex: string): IdMask {
  const mask = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const c = hex.charCodeAt(i); // NaN past the end: 0
    mask[i] = (c >= 97 && c <= 102 ? c - 87 : c >= 48 && c <= 57 ? c - 48 : 0) & 15;
  }
  return mask;
}

const HEX_CODES = Array.from(HEX, (c) => c.charCodeAt(0));
/** one id's character codes, reused by every call (maskId never re-enters) */
const codes: number[] = [];

/**
 * Rewrites `value` when it is an id (`<prefix>_<uuid>` or a bare UUID); anything else is returned as is.
 * The id is built from its character codes in one call, so it is one flat string: built with `+=`,
 * a character at a time, each id was a rope of 36 parts, about 1 KB instead of about 60 bytes, and a
 * thousand workspaces' reads filled the heap with them.
 */
export function maskId(value: string, mask: IdMask): string {
  const length = value.length;
  if (length < 36 || value.charCodeAt(length - 13) !== 45 || !ID.test(value)) return value;
  const start = length - 36;
  codes.length = length;
  for (let i = 0; i < start; i++) codes[i] = value.charCodeAt(i);
  let m = 0;
  for (let i = start; i < length; i++) {
    const c = value.charCodeAt(i);
    codes[i] = c === 45 ? 45 : HEX_CODES[(c <= 57 ? c - 48 : c - 87) ^ mask[m++]!]!;
  }
  return String.fromCharCode.apply(null, codes);
}

/**
 * `value` with every id (in values and in object keys) rewritten. Arrays and
 * objects that hold no id are the given ones, shared rather than copied: a
 * booking's price lines or a product's content cost nothing more per
 * workspace that reads them. Rows are never changed in
 * place (every write puts a new row), so sharing them is as safe as the
 * engine's own rows.
 */
export function maskValue(value: unknown, mask: IdMask): unknown {
  if (typeof value === 'string') return maskId(value, mask);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = maskValue(item, mask);
      if (out === null && masked !== item) out = value.slice(0, i);
      if (out !== null) out.push(masked);
    }
    return out ?? value;
  }
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let changed: [string, unknown][] | null = null;
  let keysChanged = false;
  for (const key of keys) {
    const item = source[key];
    const masked = maskValue(item, mask);
    if (masked !== item) (changed ??= []).push([key, masked]);
    if (maskId(key, mask) !== key) keysChanged = true;
  }
  if (keysChanged) {
    const out: Record<string, unknown> = {};
    for (const key of keys) define(out, maskId(key, mask), maskValue(source[key], mask));
    return out;
  }
  if (changed === null) return source;
  // a spread copies the row's shape as it is (in-object fields): a booking rewritten this way
  // and sharing what holds no id took 446 bytes, against 2,065 as a deep copy built a field at a time
  const out = { ...source };
  for (const [key, masked] of changed) define(out, key, masked);
  return out;
}

/** an own property, also when the key is `__proto__` (a plain assignment would set the prototype) */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
