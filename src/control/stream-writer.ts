import type { RequestLogEntry } from '../core/events.ts';
import { encodeRequestBatch, encodeStreamEvent, type RateLimitChange } from '../core/stream-events.ts';

/** A busy stream's small frames are gathered for this long into one write (a quiet one's leave at once). */
export const STREAM_FLUSH_MS = 100;
/** ... unless they reach this many bytes: big frames leave at the next turn of the loop, as they come. */
export const STREAM_FLUSH_BYTES = 64 * 1024;
/** what a request of a batch adds to a write, about (a row of `encodeRequestBatch`) */
const BATCHED_REQUEST_BYTES = 160;
/**
 * Bytes the stream sends a second, all its clients together, at most: each client's share is this
 * divided by their number (not less than STREAM_MIN_BYTES_PER_SECOND). Past its share in a second, a
 * client's request events are dropped until the next second, and a comment says how many. Every
 * client reads what it is sent, so 100 dashboards of a busy /v1 would be 100 copies of its requests
 * with their bodies, and the socket writes alone would take /v1's CPU. One client alone keeps
 * ~3,000 requests a second with their headers and bodies; each of 100, ~30 (a person's reading),
 * or ~700 with `detail=none`. Other events always go.
 */
export const STREAM_BYTES_PER_SECOND = 16 * 1024 * 1024;
/** ... and each client's share is at least this, however many they are (with the cap raised) */
export const STREAM_MIN_BYTES_PER_SECOND = 64 * 1024;

/** Where a write goes: `frames`, the SSE text of `events` stream events, built once for every client that shares it. */
export type StreamSink = (frames: string, events: number) => void;

/**
 * The frames of one kind of stream (GET /__sandbox/stream with one set of options), gathered
 * into few writes. Under load ten writes a second, not one a request: each write is a chunk the
 * reader (a browser page) wakes up for. A bucket's rate-limit changes of one write are one frame,
 * its last: every /v1 request changes its bucket, and only the newest state is worth showing.
 * With `batched`, a run of requests is one `requests` frame, in its place among the other frames
 * (so /v1 throughput holds with a page open). One writer serves every client with the same
 * options (src/control/stream-hub.ts): each event is encoded once, not once a client.
 */
export class StreamWriter {
  #queued: string[] = [];
  #queuedBytes = 0;
  #events = 0;
  #requests: RequestLogEntry[] = [];
  #buckets = new Map<string, RateLimitChange>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #immediate = false;
  #lastFlush = 0;
  /** the budget's second: when it began, the bytes queued in it, the request events dropped */
  #secondStart = -Infinity;
  #secondBytes = 0;
  #dropped = 0;

  constructor(
    private readonly sink: StreamSink,
    private readonly batched: boolean,
    /** bytes this writer may send a second, now (its share of STREAM_BYTES_PER_SECOND) */
    private readonly budget: () => number = () => STREAM_BYTES_PER_SECOND,
    private readonly now: () => number = () => performance.now(),
  ) {}

  frame(frame: string): void {
    this.#endRun();
    this.#queued.push(frame);
    this.#queuedBytes += frame.length;
    this.#secondBytes += frame.length;
    this.#events += 1;
    this.#later();
  }

  /** `entry` is built only when the budget has room: past it, nothing of it is encoded. */
  request(entry: RequestLogEntry | (() => RequestLogEntry)): void {
    if (this.#overBudget()) {
      this.#dropped += 1;
      return this.#later();
    }
    const built = typeof entry === 'function' ? entry() : entry;
    if (!this.batched) return this.frame(encodeStreamEvent('request', built));
    this.#requests.push(built);
    this.#queuedBytes += BATCHED_REQUEST_BYTES;
    this.#secondBytes += BATCHED_REQUEST_BYTES;
    this.#events += 1;
    this.#later();
  }

  #overBudget(): boolean {
    const now = this.now();
    if (now - this.#secondStart >= 1000) {
      this.#secondStart = now;
      this.#secondBytes = 0;
    }
    return this.#secondBytes >= this.budget();
  }

  rateLimit(change: RateLimitChange): void {
    this.#buckets.delete(change.bucket); // the newest last
    this.#buckets.set(change.bucket, change);
    this.#later();
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #endRun(): void {
    if (this.#requests.length === 0) return;
    this.#queued.push(encodeRequestBatch(this.#requests));
    this.#requests = [];
  }

  #later(): void {
    if (this.#immediate) return;
    const wait = this.#queuedBytes >= STREAM_FLUSH_BYTES ? 0 : this.#lastFlush + STREAM_FLUSH_MS - performance.now();
    if (wait > 0) {
      this.#timer ??= setTimeout(this.flush, wait);
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#immediate = true;
    setImmediate(this.flush);
  }

  /** Sends what is gathered now (the timers call it; tests too, instead of waiting). */
  flush = (): void => {
    this.#timer = null;
    this.#immediate = false;
    this.#lastFlush = performance.now();
    this.#endRun();
    for (const change of this.#buckets.values()) this.#queued.push(encodeStreamEvent('rate-limit', change));
    if (this.#dropped > 0) {
      // a comment: every reader skips it (SSE), and one reading the raw stream sees the gap; the request log has them
      this.#queued.push(
        `: dropped ${this.#dropped} request events: this client's share of the stream is ${this.budget()} bytes a second (GET /__sandbox/requests lists the newest 1000)\n\n`,
      );
      this.#dropped = 0;
    }
    const events = this.#events + this.#buckets.size;
    const frames = this.#queued.join('');
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#events = 0;
    this.#buckets = new Map();
    if (frames !== '') this.sink(frames, events);
  };
}
