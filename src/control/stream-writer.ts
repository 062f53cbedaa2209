import type { RequestLogEntry } from '../core/events.ts';
import { encodeRequestBatch, encodeStreamEvent, type RateLimitChange } from '../core/stream-events.ts';

/** A busy stream's small frames are gathered for this long into one write (a quiet one's leave at once). */
export const STREAM_FLUSH_MS = 100;
/** ... unless they reach this many bytes: big frames leave at the next turn of the loop, as they come. */
export const STREAM_FLUSH_BYTES = 64 * 1024;
/** what a request of a batch adds to a write, about (a row of `encodeRequestBatch`) */
const BATCHED_REQUEST_BYTES = 160;

/** Where a write goes: `frames`, the SSE text of `events` stream events, built once for every client that shares it. */
export type StreamSink = (frames: string, events: number) => void;

/**
 * The frames of one kind of stream (GET /__sandbox/stream with one set of options), gathered
 * into few writes. Under load ten writes a second, not one a request: each write is a chunk the
 * reader (a browser page) wakes up for. A bucket's rate-limit changes of one write are one frame,
 * its last: every /v1 request changes its bucket, and only the newest state is worth showing.
 * With `batched`, a run of requests is one `requests` frame, in its place among the other frames
 * (issue 25: /v1 throughput with a page open). One writer serves every client with the same
 * options (src/control/stream-hub.ts): each event is encoded once, not once a client (issue 34).
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

  constructor(
    private readonly sink: StreamSink,
    private readonly batched: boolean,
  ) {}

  frame(frame: string): void {
    this.#endRun();
    this.#queued.push(frame);
    this.#queuedBytes += frame.length;
    this.#events += 1;
    this.#later();
  }

  request(entry: RequestLogEntry): void {
    if (!this.batched) return this.frame(encodeStreamEvent('request', entry));
    this.#requests.push(entry);
    this.#queuedBytes += BATCHED_REQUEST_BYTES;
    this.#events += 1;
    this.#later();
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
    const events = this.#events + this.#buckets.size;
    const frames = this.#queued.join('');
    this.#queued = [];
    this.#queuedBytes = 0;
    this.#events = 0;
    this.#buckets = new Map();
    if (frames !== '') this.sink(frames, events);
  };
}
