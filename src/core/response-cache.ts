/**
 * Pre-serialized responses for hot read paths (product lists). Serialization
 * dominates the cost of a list response, so a list is serialized once per
 * version of its data and served as a string until the data changes. Keys
 * carry the store's partition version, so a write makes stale entries
 * unreachable; the map is bounded.
 */
export class ResponseCache {
  private entries = new Map<string, string>();

  constructor(private readonly maxEntries = 1000) {}

  get(key: string, build: () => unknown): string {
    let hit = this.entries.get(key);
    if (hit === undefined) {
      hit = JSON.stringify(build());
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, hit);
    }
    return hit;
  }

  clear(): void {
    this.entries.clear();
  }
}
