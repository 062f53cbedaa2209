import { useSyncExternalStore } from 'react';
import { api, describeError, type DataOf } from '../api.ts';
import { openStream } from '../stream.ts';

/**
 * The page's request log: the recent log the sandbox keeps (GET /__sandbox/requests), then
 * every `request` event of the live stream. One per page, started by the first view that
 * reads it and kept while the page lives, so going to a request's details and back keeps
 * the log, and the page stays a stream client (the sandbox captures headers and bodies only
 * while one is connected).
 *
 * Built to keep up with 1,000 requests a second: events are buffered and flushed on an
 * animation frame, at most every FLUSH_MS (a timer waits out the rest) (one React update per flush, whatever the rate:
 * nothing is drawn while the tab is hidden); the log is bounded (the last
 * LOG_CAPACITY entries; headers and bodies kept for the newest DETAIL_CAPACITY only).
 */
export type RequestEntry = DataOf<'/__sandbox/requests', 'get'>[number];

export const LOG_CAPACITY = 5_000;
export const DETAIL_CAPACITY = 1_000;
/** what the page asks of the sandbox's own log on connecting (it keeps 1,000) */
export const INITIAL_LIMIT = 1_000;
/** the rows change at most this often (5 a second still reads as live, and costs a busy machine far less than 60, so /v1 throughput holds with a page open) */
export const FLUSH_MS = 200;
/**
 * ... and at most once a second while the traffic is heavy (the last draw brought BUSY_BATCH rows or
 * more): no one reads hundreds of rows a second as they scroll by, and each draw costs the browser
 * a layout and a paint that a busy machine takes from the sandbox it watches.
 */
export const BUSY_FLUSH_MS = 1000;
export const BUSY_BATCH = 100;

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface LogSnapshot {
  /** oldest first; read newest first with `entries[entries.length - 1 - i]` */
  readonly entries: readonly RequestEntry[];
  readonly connection: Connection;
  /** requests received since the page opened (or the last Clear), the trimmed ones included */
  readonly received: number;
  /** true once the recent log was read (a request's page can then say "not in the log") */
  readonly loaded: boolean;
  readonly error: string | null;
}

class RequestLogStore {
  #snapshot: LogSnapshot = { entries: [], connection: 'connecting', received: 0, loaded: false, error: null };
  #byId = new Map<string, RequestEntry>();
  #pending: RequestEntry[] = [];
  #scheduled = false;
  #lastBatch = 0;
  #lastFlush = 0;
  #listeners = new Set<() => void>();
  #started = false;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    this.#start();
    return () => this.#listeners.delete(listener);
  };

  getSnapshot = (): LogSnapshot => this.#snapshot;

  get(requestId: string): RequestEntry | undefined {
    return this.#byId.get(requestId);
  }

  /** DELETE /__sandbox/requests, then an empty log here */
  async clear(): Promise<void> {
    const { error, response } = await api.DELETE('/__sandbox/requests');
    if (error !== undefined) throw new Error(`${response.status} ${describeError(error)}`);
    this.#pending = [];
    this.#byId.clear();
    this.#set({ entries: [], received: 0, error: null });
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    openStream(
      ['request', 'reset'],
      (event, data) => {
        if (event === 'hello') void this.#loadRecent();
        else if (event === 'request') this.#receive(data as RequestEntry);
        else if (event === 'reset') this.#set({}); // the log itself is not reset by a state reset
      },
      (connected) => this.#set({ connection: connected ? 'live' : this.#snapshot.loaded ? 'reconnecting' : 'connecting' }),
    );
  }

  /** the sandbox's recent log, merged under what the stream already brought */
  async #loadRecent(): Promise<void> {
    const { data, error, response } = await api.GET('/__sandbox/requests', { params: { query: { limit: INITIAL_LIMIT } } });
    if (data === undefined) {
      this.#set({ error: `could not read the request log: ${response.status} ${describeError(error)}`, loaded: true });
      return;
    }
    const recent = data.data.filter((entry) => !this.#byId.has(entry.requestId)).reverse(); // oldest first
    if (recent.length === 0) {
      this.#set({ loaded: true, error: null });
      return;
    }
    for (const entry of recent) this.#byId.set(entry.requestId, entry);
    const merged = [...recent, ...this.#snapshot.entries].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    this.#set({ entries: this.#trim(merged), received: this.#snapshot.received + recent.length, loaded: true, error: null });
  }

  #receive(entry: RequestEntry): void {
    this.#pending.push(entry);
    if (this.#scheduled) return;
    this.#scheduled = true;
    // wait out the rest of FLUSH_MS with a timer, then draw on the next frame: asking for a frame
    // every vsync while waiting would make the browser produce 60 frames a second under load
    const wait = this.#lastFlush + (this.#lastBatch >= BUSY_BATCH ? BUSY_FLUSH_MS : FLUSH_MS) - performance.now();
    if (wait <= 0) requestAnimationFrame(this.#flush);
    else setTimeout(() => requestAnimationFrame(this.#flush), wait);
  }

  #flush = (now: number): void => {
    this.#lastFlush = now;
    this.#scheduled = false;
    const batch = this.#pending;
    this.#lastBatch = batch.length;
    if (batch.length === 0) return;
    this.#pending = [];
    const fresh = batch.filter((entry) => !this.#byId.has(entry.requestId));
    for (const entry of fresh) this.#byId.set(entry.requestId, entry);
    const entries = this.#snapshot.entries.concat(fresh);
    // headers and bodies are kept for the newest DETAIL_CAPACITY entries only
    const stale = entries.length - 1 - DETAIL_CAPACITY;
    for (let i = Math.max(0, stale - fresh.length + 1); i <= stale; i += 1) {
      const old = entries[i];
      if (old?.detail) {
        const { detail: _dropped, ...rest } = old;
        entries[i] = rest;
        this.#byId.set(rest.requestId, rest);
      }
    }
    this.#set({ entries: this.#trim(entries), received: this.#snapshot.received + fresh.length });
  };

  #trim(entries: RequestEntry[]): RequestEntry[] {
    if (entries.length <= LOG_CAPACITY) return entries;
    const cut = entries.length - LOG_CAPACITY;
    for (let i = 0; i < cut; i += 1) this.#byId.delete(entries[i]!.requestId);
    return entries.slice(cut);
  }

  #set(change: Partial<LogSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...change };
    for (const listener of this.#listeners) listener();
  }
}

export const requestLog = new RequestLogStore();

export function useRequestLog(): LogSnapshot {
  return useSyncExternalStore(requestLog.subscribe, requestLog.getSnapshot);
}
