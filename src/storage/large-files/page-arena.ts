/** Where packed pages live (packed-rows.ts). */

const ARENA_BYTES = 64 * 1024;
let arena = Buffer.allocUnsafeSlow(ARENA_BYTES);
let arenaUsed = 0;

/**
 * A page's own copy, cut from a shared 64 KB arena. zlib's result is a slice of
 * its 16 KB output buffer, which would stay alive with it; Buffer's own pool is
 * 8 KB, so pages of 1.5-2.5 KB wasted about a page per slab. An arena is
 * freed when no page in it is left (a rewritten page's old bytes wait for that).
 */
export function keep(data: Buffer): Buffer {
  if (data.length > ARENA_BYTES / 8) return Buffer.from(data);
  if (arenaUsed + data.length > ARENA_BYTES) {
    arena = Buffer.allocUnsafeSlow(ARENA_BYTES);
    arenaUsed = 0;
  }
  const page = arena.subarray(arenaUsed, arenaUsed + data.length);
  data.copy(page);
  arenaUsed += data.length;
  return page;
}
