import type { EventBus, RequestLogEntry } from './events.ts';

/** Captured headers and bodies are kept on the newest entries only, so memory stays small. */
const DETAIL_CAPACITY = 200;

/**
 * The recent requests, newest last, bounded so a long run never grows memory.
 * While at least one stream client watches (the dashboard), the request hooks
 * also capture headers and bodies; otherwise they skip that work entirely.
 */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private watchers = 0;

  constructor(
    bus: EventBus,
    private readonly capacity = 1000,
  ) {
    bus.on('request', (entry) => {
      this.entries.push(entry);
      // trimmed in batches: amortized constant time per request instead of a splice each time
      if (this.entries.length >= this.capacity * 2) this.entries = this.entries.slice(-this.capacity);
      const old = this.entries.length - 1 - DETAIL_CAPACITY;
      const stale = this.entries[old];
      if (stale?.detail) {
        const { detail: _dropped, ...rest } = stale;
        this.entries[old] = rest;
      }
    });
  }

  /** true while someone watches: the request hooks then capture headers and bodies */
  get capturing(): boolean {
    return this.watchers > 0;
  }

  /** Registers a watcher (a stream client); call the returned function when it leaves. */
  watch(): () => void {
    this.watchers += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.watchers -= 1;
    };
  }

  recent(limit: number): RequestLogEntry[] {
    return this.entries.slice(-Math.min(limit, this.capacity)).reverse();
  }

  clear(): void {
    this.entries = [];
  }
}
