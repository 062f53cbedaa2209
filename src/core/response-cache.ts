/**
 * Pre-serialized responses for hot read paths (product lists). Serialization
 * dominates the cost of a list response, so a list is serialized once per
 * version of its data and served from memory until the data changes. Keys
 * carry the store's partition version, so a write makes stale entries
 * unreachable; the map is bounded.
 *
 * The entry is the UTF-8 bytes, not the JSON string: a string body costs
 * Node a `Buffer.byteLength` (Content-Length) and an encoding copy on every
 * send, about a quarter of the CPU of a 58 KB page (docs/benchmarks.md, issue 11).
 */
export class ResponseCache {
  private entries = new Map<string, Buffer>();

  constructor(private readonly maxEntries = 1000) {}

  get(key: string, build: () => unknown): Buffer {
    let hit = this.entries.get(key);
    if (hit === undefined) {
      hit = Buffer.from(JSON.stringify(build()), 'utf8');
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, hit);
    }
    return hit;
  }

  clear(): void {
    this.entries.clear();
  }
}
