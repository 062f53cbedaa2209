import type { SandboxContext } from '../context.ts';
import { notFound } from '../core/errors.ts';
import { encodeStreamEvent, FORWARDED_EVENTS, type RateLimitChange } from '../core/stream-events.ts';
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
      // Frames of one tick go out in one write: under load one system call, not one a request. A
      // bucket's rate-limit changes of one tick are one frame, its last: every /v1 request changes its
      // bucket, and only the newest state is worth showing (issue 25: /v1 throughput with a page open).
      let queued: string[] = [];
      let buckets = new Map<string, RateLimitChange>();
      let scheduled = false;
      const flush = () => {
        scheduled = false;
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
        setImmediate(flush);
      };
      const send = (frame: string) => {
        queued.push(frame);
        later();
      };
      const withDetail = request.query.detail === 'full';
      const unsubscribe = [
        ctx.bus.on('request', (payload) => send(encodeStreamEvent('request', withDetail ? ctx.requestLog.withDetail(payload) : payload))),
        ctx.bus.on('domain', (payload) => send(encodeStreamEvent('domain', payload))),
        ctx.bus.on('delivery', (payload) => send(encodeStreamEvent('delivery', payload))),
        ctx.bus.on('rate-limit', (payload) => {
          buckets.delete(payload.bucket); // the newest last
          buckets.set(payload.bucket, payload);
          later();
        }),
        ctx.bus.on('reset', (payload) => send(encodeStreamEvent('reset', payload))),
      ];
      // a watcher makes the request hooks capture headers and bodies (docs/dashboard.md)
      const unwatch = ctx.requestLog.watch();
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
