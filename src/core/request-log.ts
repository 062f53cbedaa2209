import type { EventBus, RequestDetail, RequestLogEntry } from './events.ts';

interface Capture {
  requestId: string;
  /** dropped once rendered: the references it holds (bodies, headers) go with it */
  render: (() => RequestDetail) | undefined;
  rendered?: RequestDetail;
  /** what it holds, about (its bodies' bytes and some for the headers): counted against the byte bound */
  bytes: number;
}

/** Captured headers and bodies are kept for the newest entries only, so memory stays small. */
export const DETAIL_CAPACITY = 200;
/** ... and for as many of them as fit in this many bytes, all together (the sandbox option requestCaptureBytes) */
export const DEFAULT_CAPTURE_BYTES = 8 * 1024 * 1024;
/** what a capture's headers and bookkeeping count for, beside its bodies */
export const CAPTURE_OVERHEAD_BYTES = 1024;

/**
 * The recent requests, newest last, bounded so a long run never grows memory.
 * While at least one stream client watches (the dashboard, the inspector),
 * the request hooks also capture headers and bodies, as references rendered
 * into text only when read (src/http/request-capture.ts): by a stream client
 * that asks for them, GET /__sandbox/requests, or one request's page.
 */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private watchers = 0;
  /**
   * The newest captures, a ring (a Map trimmed from its head costs more per request under load,
   * and /v1 throughput must hold while the inspector watches); each renders once, when first read.
   */
  private readonly details: (Capture | undefined)[] = new Array<Capture | undefined>(DETAIL_CAPACITY);
  private nextDetail = 0;
  /** the bytes of the captures in the ring, about */
  private detailBytes = 0;
  /** every request since the start or the last clear, kept or not: more than the log holds means it wrapped */
  private seen = 0;
  /** a bundle's log (`sandbox open`) takes no new entry: the story it tells is the run's */
  private frozen = false;

  constructor(
    bus: EventBus,
    private readonly capacity = 1000,
    /** the captures' bytes at most, all together: a 1 MB body 200 times is not kept */
    private readonly captureBytes = DEFAULT_CAPTURE_BYTES,
  ) {
    bus.on('request', (entry) => {
      if (this.frozen) return;
      this.seen += 1;
      this.entries.push(entry);
      // trimmed in batches: amortized constant time per request instead of a splice each time
      if (this.entries.length >= this.capacity * 2) this.entries = this.entries.slice(-this.capacity);
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

  /**
   * Keeps a request's capture (before its entry is emitted); `render` runs at most once, when first
   * read. `bodyBytes`: its request and response bodies' size; the oldest captures leave until the
   * kept ones fit in the byte bound (one larger than the bound alone is not kept).
   */
  keepDetail(requestId: string, render: () => RequestDetail, bodyBytes = 0): void {
    const bytes = bodyBytes + CAPTURE_OVERHEAD_BYTES;
    this.forget(this.nextDetail); // the oldest, whose place this is
    if (bytes > this.captureBytes) return;
    for (let i = 1; this.detailBytes + bytes > this.captureBytes && i < DETAIL_CAPACITY; i++) this.forget((this.nextDetail + i) % DETAIL_CAPACITY);
    this.details[this.nextDetail] = { requestId, render, bytes };
    this.detailBytes += bytes;
    this.nextDetail = (this.nextDetail + 1) % DETAIL_CAPACITY;
  }

  /** the bytes the kept captures count for (tests, docs/configuration.md) */
  get keptCaptureBytes(): number {
    return this.detailBytes;
  }

  private forget(slot: number): void {
    const old = this.details[slot];
    if (!old) return;
    this.detailBytes -= old.bytes;
    this.details[slot] = undefined;
  }

  /** The entry with its headers and bodies, when they are still kept. */
  withDetail(entry: RequestLogEntry, capture: Capture | null = this.capture(entry.requestId)): RequestLogEntry {
    if (!capture) return entry;
    if (!capture.rendered) {
      capture.rendered = capture.render!();
      capture.render = undefined;
    }
    return { ...entry, detail: capture.rendered };
  }

  /** newest first: the stream asks for the capture just kept */
  private capture(requestId: string): Capture | null {
    for (let i = 1; i <= DETAIL_CAPACITY; i++) {
      const capture = this.details[(this.nextDetail - i + DETAIL_CAPACITY) % DETAIL_CAPACITY];
      if (capture?.requestId === requestId) return capture;
    }
    return null;
  }

  recent(limit: number): RequestLogEntry[] {
    // the ring by id once, not a walk of it for each of up to 1,000 entries
    const kept = new Map<string, Capture>();
    for (const capture of this.details) if (capture) kept.set(capture.requestId, capture);
    return this.entries
      .slice(-Math.min(limit, this.capacity))
      .reverse()
      .map((entry) => this.withDetail(entry, kept.get(entry.requestId) ?? null));
  }

  /** One request of the log, with its headers and bodies when still kept; undefined once it left the log. */
  find(requestId: string): RequestLogEntry | undefined {
    const start = Math.max(0, this.entries.length - this.capacity);
    for (let i = this.entries.length - 1; i >= start; i--) {
      if (this.entries[i]!.requestId === requestId) return this.withDetail(this.entries[i]!);
    }
    return undefined;
  }

  /** how many requests the log has seen since the start or the last clear, and how many of them it still holds */
  counts(): { seen: number; kept: number; capacity: number } {
    return { seen: this.seen, kept: Math.min(this.entries.length, this.capacity), capacity: this.capacity };
  }

  /**
   * The log of a bundle (src/bundle/load.ts), oldest first, each entry with the headers and bodies it
   * was saved with; `seen` counts the requests the run made, the dropped ones too. `freeze`: no new
   * entry joins it (a bundle opened read-only tells the run's story, not the viewer's).
   */
  restore(entries: readonly RequestLogEntry[], seen: number, freeze: boolean): void {
    this.clear();
    this.entries = entries.slice(-this.capacity);
    this.seen = Math.max(seen, this.entries.length);
    this.frozen = freeze;
  }

  clear(): void {
    this.seen = 0;
    this.entries = [];
    this.details.fill(undefined);
    this.detailBytes = 0;
  }
}
