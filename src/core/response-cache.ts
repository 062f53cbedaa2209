/**
 * Pre-serialized responses for hot read paths (product lists). Serialization
 * dominates the cost of a list response, so a list is serialized once per
 * version of its data and served from memory until the data changes. Keys
 * carry the store's partition version, so a write makes stale entries
 * unreachable; the map is bounded.
 *
 * The entry is the UTF-8 bytes, not the JSON string: a string body costs
 * Node a `Buffer.byteLength` (Content-Length) and an encoding copy on every
 * send, about a quarter of the CPU of a 58 KB page (docs/benchmarks.md).
 *
 * Bounded in bytes as well as entries: a thousand created workspaces that
 * each list products once would otherwise keep a thousand 48 KB pages
 * (`maxWorkspaces` allows 1,000). Past either bound, the oldest entries go.
 */
export const RESPONSE_CACHE_BYTES = 8 * 1024 * 1024;

export class ResponseCache {
  private entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 1000,
    private readonly maxBytes = RESPONSE_CACHE_BYTES,
  ) {}

  get(key: string, build: () => unknown): Buffer {
    let hit = this.entries.get(key);
    if (hit === undefined) {
      hit = Buffer.from(JSON.stringify(build()), 'utf8');
      if (hit.length > this.maxBytes) return hit; // too large to keep at all
      for (const [oldKey, old] of this.entries) {
        if (this.entries.size < this.maxEntries && this.bytes + hit.length <= this.maxBytes) break;
        this.entries.delete(oldKey);
        this.bytes -= old.length;
      }
      this.entries.set(key, hit);
      this.bytes += hit.length;
    }
    return hit;
  }

  /** entries and bytes held (tests of the bound) */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
