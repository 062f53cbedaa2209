import type { SandboxContext } from '../context.ts';
import { notFound } from '../core/errors.ts';
import type { RequestLogEntry, SandboxEvents } from '../core/events.ts';
import { encodeRequestBatch, encodeStreamEvent, FORWARDED_EVENTS, type RateLimitChange, type StreamEventName } from '../core/stream-events.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from './contract.ts';
import { OBSERVE_ROUTES } from './contracts/observe.ts';

/**
 * Watching the sandbox: the recent request log, and a Server-Sent Events
 * stream of requests, domain events, webhook deliveries, rate-limit changes
 * and resets (the dashboard reads it). Every frame's shape is the shared zod
 * schema of src/core/stream-events.ts, which the dashboard decodes with.
 */
export const STREAM_EVENT_TYPES = FORWARDED_EVENTS;
const HEARTBEAT_MS = 15_000;
/**
 * Bytes a stream client may fall behind (written, not yet taken by its
 * socket). Past this the stream is closed rather than buffered without end;
 * the client reconnects after `retry` and continues with live events.
 */
export const STREAM_BACKLOG_BYTES = 1024 * 1024;
/** A busy stream's frames are gathered for this long into one write (a quiet one's leave at once). */
export const STREAM_FLUSH_MS = 100;

export function registerObserveRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, OBSERVE_ROUTES, {
    requests: async (request) => ctx.requestLog.recent(request.query.limit),

    request: async (request) => {
      const entry = ctx.requestLog.find(request.params.requestId);
      if (!entry) throw notFound(`Request ${request.params.requestId}`); // never made, or older than the log's last 1,000
      return entry;
    },

    clearRequests: async () => {
      ctx.requestLog.clear();
      return { cleared: true };
    },

    stream: async (request, reply) => {
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': request.id,
      });
      res.write(`retry: 1000\n${encodeStreamEvent('hello', { now: ctx.clock.iso(), clock: ctx.clock.mode })}`);
      // Frames go out at most every STREAM_FLUSH_MS, in one write: under load ten writes a second, not
      // one a request (each write is a chunk the reader, a browser page, wakes up for). A quiet stream
      // sends at once: an event after a pause leaves on the next turn of the loop. A bucket's rate-limit
      // changes of one write are one frame, its last: every /v1 request changes its bucket, and only the
      // newest state is worth showing (issue 25: /v1 throughput with a page open).
      let queued: string[] = [];
      let requests: RequestLogEntry[] = []; // ?requests=batched: the run of requests not yet encoded
      let buckets = new Map<string, RateLimitChange>();
      let scheduled = false;
      let lastFlush = 0;
      const flush = () => {
        scheduled = false;
        lastFlush = performance.now();
        endRun();
        for (const change of buckets.values()) queued.push(encodeStreamEvent('rate-limit', change));
        const frames = queued.join('');
        queued = [];
        buckets = new Map();
        if (res.destroyed) return;
        if (res.writableLength > STREAM_BACKLOG_BYTES) {
          res.destroy(); // 'close' below unsubscribes
          return;
        }
        res.write(frames);
      };
      const later = () => {
        if (scheduled) return;
        scheduled = true;
        const wait = lastFlush + STREAM_FLUSH_MS - performance.now();
        if (wait <= 0) setImmediate(flush);
        else setTimeout(flush, wait);
      };
      // a run of requests becomes one `requests` frame, in its place among the other frames
      const endRun = () => {
        if (requests.length === 0) return;
        queued.push(encodeRequestBatch(requests));
        requests = [];
      };
      const send = (frame: string) => {
        endRun();
        queued.push(frame);
        later();
      };
      const withDetail = request.query.detail === 'full';
      const onRequest =
        request.query.requests === 'batched'
          ? (payload: RequestLogEntry) => {
              requests.push(withDetail ? ctx.requestLog.withDetail(payload) : payload);
              later();
            }
          : (payload: RequestLogEntry) => send(encodeStreamEvent('request', withDetail ? ctx.requestLog.withDetail(payload) : payload));
      const handlers: { [K in StreamEventName & keyof SandboxEvents]: (payload: SandboxEvents[K]) => void } = {
        request: onRequest,
        domain: (payload) => send(encodeStreamEvent('domain', payload)),
        delivery: (payload) => send(encodeStreamEvent('delivery', payload)),
        'rate-limit': (payload) => {
          buckets.delete(payload.bucket); // the newest last
          buckets.set(payload.bucket, payload);
          later();
        },
        reset: (payload) => send(encodeStreamEvent('reset', payload)),
      };
      // ?events=: only what the client reads. An event no client reads is not even built (the
      // rate-limit change of every /v1 request, a request's capture), so a page showing deliveries
      // costs /v1 nothing per request (issue 25: throughput with the inspector open)
      const wanted = request.query.events?.split(',') ?? STREAM_EVENT_TYPES;
      const unsubscribe = STREAM_EVENT_TYPES.filter((type) => wanted.includes(type)).map((type) => ctx.bus.on(type, handlers[type] as never));
      // a watcher makes the request hooks capture headers and bodies (docs/dashboard.md)
      const unwatch = wanted.includes('request') ? ctx.requestLog.watch() : () => undefined;
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      request.raw.on('close', () => {
        clearInterval(heartbeat);
        unwatch();
        for (const off of unsubscribe) off();
      });
    },
  });
}
