import type { ServerResponse } from 'node:http';
import { conflict } from '../core/errors.ts';
import type { EventBus, SandboxEvents } from '../core/events.ts';
import type { RequestLog } from '../core/request-log.ts';
import { encodeStreamEvent, type FORWARDED_EVENTS, type StreamEventName } from '../core/stream-events.ts';
import { STREAM_BYTES_PER_SECOND, STREAM_MIN_BYTES_PER_SECOND, StreamWriter } from './stream-writer.ts';

/**
 * Bytes a stream client may fall behind (written, not yet taken by its socket). Past this its
 * writes are dropped, not buffered: memory stays bounded however slowly it reads, and when it
 * catches up a comment says how many events it missed.
 */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;
/** A comment every 15 s keeps proxies from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;
/** Heartbeats in a row a client may stay behind before it is closed (a minute): a reader that is gone frees its place. */
export const BEHIND_HEARTBEATS_BEFORE_CLOSE = 4;

type ForwardedEvent = (typeof FORWARDED_EVENTS)[number];

/** What a client asked of the stream (GET /__sandbox/stream's query), the part that shapes its frames. */
export interface StreamShape {
  /** request events with their headers and bodies (`detail=full`) */
  detail: boolean;
  /** a write's requests as one `requests` table (`requests=batched`) */
  batched: boolean;
  /** the bus events it reads */
  events: readonly ForwardedEvent[];
}

const HEARTBEAT = Buffer.from(': heartbeat\n\n');

/** One connection: its socket, and what it missed while behind. */
class StreamClient {
  dropped = 0;
  behindBeats = 0;

  constructor(readonly res: ServerResponse) {}

  get behind(): boolean {
    return this.res.writableLength > STREAM_BACKLOG_BYTES;
  }

  /** Writes a shared chunk, or drops it when the socket has not taken what came before. */
  send(chunk: Buffer, events: number): void {
    if (this.res.destroyed) return;
    if (this.behind) {
      this.dropped += events;
      return;
    }
    if (this.dropped > 0) {
      // a comment: every reader skips it (SSE), and a person reading the raw stream sees the gap
      this.res.write(`: dropped ${this.dropped} events: this client read too slowly (more than ${STREAM_BACKLOG_BYTES} bytes behind)\n\n`);
      this.dropped = 0;
    }
    this.res.write(chunk);
  }
}

/**
 * The clients that asked for the same frames, and the one writer that builds them: each event
 * is encoded once and each write is one Buffer, the same object for every client (so
 * 100 dashboards cost /v1 one encoding, not 100).
 */
class StreamGroup {
  readonly clients = new Set<StreamClient>();
  readonly writer: StreamWriter;
  readonly #unsubscribe: (() => void)[];

  constructor(bus: EventBus, requestLog: RequestLog, shape: StreamShape, budget: () => number, now?: () => number) {
    this.writer = new StreamWriter((frames, events) => this.#broadcast(frames, events), shape.batched, budget, now);
    const writer = this.writer;
    const handlers: { [K in StreamEventName & keyof SandboxEvents]: (payload: SandboxEvents[K]) => void } = {
      request: (payload) => writer.request(shape.detail ? () => requestLog.withDetail(payload) : payload),
      domain: (payload) => writer.frame(encodeStreamEvent('domain', payload)),
      delivery: (payload) => writer.frame(encodeStreamEvent('delivery', payload)),
      'rate-limit': (payload) => writer.rateLimit(payload),
      reset: (payload) => writer.frame(encodeStreamEvent('reset', payload)),
    };
    // only what the clients read: an event no client reads is not even built (the rate-limit change
    // of every /v1 request, a request's capture), so a page showing deliveries costs /v1 nothing per request
    this.#unsubscribe = shape.events.map((type) => bus.on(type, handlers[type] as never));
  }

  #broadcast(frames: string, events: number): void {
    const chunk = Buffer.from(frames); // encoded to bytes once, for all
    for (const client of this.clients) client.send(chunk, events);
  }

  close(): void {
    this.writer.close();
    for (const off of this.#unsubscribe) off();
  }
}

/**
 * Every client of GET /__sandbox/stream, grouped by the frames they asked for, with a cap on how
 * many (the sandbox option maxStreamClients): past it a new client gets a 409 that says how to
 * make room, rather than each one more slowing /v1.
 */
export class StreamHub {
  readonly #groups = new Map<string, StreamGroup>();
  #count = 0;
  #heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly bus: EventBus,
    private readonly requestLog: RequestLog,
    readonly maxClients: number,
    /** the budget's clock (tests pass theirs) */
    private readonly now?: () => number,
  ) {}

  get clients(): number {
    return this.#count;
  }

  /** what each client may be sent a second: the stream's bytes a second, shared */
  readonly bytesPerClient = (): number => Math.max(STREAM_MIN_BYTES_PER_SECOND, Math.floor(STREAM_BYTES_PER_SECOND / Math.max(1, this.#count)));

  /** Throws the 409 when the cap is reached; call before answering, so the refusal is an ordinary error. */
  admit(): void {
    if (this.#count < this.maxClients) return;
    throw conflict(
      'CONTROL_CONFLICT',
      `This sandbox already streams to ${this.#count} clients, its limit: close one (a dashboard, an inspector tab, a \`sandbox logs --follow\`) or raise the limit (\`sandbox start --max-stream-clients <n>\`, or the maxStreamClients option)`,
    );
  }

  /** Adds a client whose headers (and hello) are written; the returned function removes it. */
  join(res: ServerResponse, shape: StreamShape): () => void {
    const key = `${shape.detail ? 'full' : 'none'}|${shape.batched ? 'batched' : 'each'}|${shape.events.join(',')}`;
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = new StreamGroup(this.bus, this.requestLog, shape, this.bytesPerClient, this.now)));
    const client = new StreamClient(res);
    group.clients.add(client);
    this.#count += 1;
    if (!this.#heartbeat) {
      this.#heartbeat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
      this.#heartbeat.unref();
    }
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#count -= 1;
      group.clients.delete(client);
      if (group.clients.size === 0) {
        group.close();
        if (this.#groups.get(key) === group) this.#groups.delete(key);
      }
      if (this.#count === 0 && this.#heartbeat) {
        clearInterval(this.#heartbeat);
        this.#heartbeat = null;
      }
    };
  }

  /** Writes what every group has gathered now (tests, instead of waiting for the writers' timers). */
  flush(): void {
    for (const group of this.#groups.values()) group.writer.flush();
  }

  /** The heartbeat comment to every client; one still behind after a minute of them is closed (its 'close' handler leaves). */
  heartbeat(): void {
    for (const group of this.#groups.values()) {
      for (const client of group.clients) {
        client.behindBeats = client.behind ? client.behindBeats + 1 : 0;
        if (client.behindBeats >= BEHIND_HEARTBEATS_BEFORE_CLOSE) client.res.destroy();
        else client.send(HEARTBEAT, 0);
      }
    }
  }
}
