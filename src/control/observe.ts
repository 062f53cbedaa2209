import type { SandboxContext } from '../context.ts';
import { notFound } from '../core/errors.ts';
import type { SandboxEvents } from '../core/events.ts';
import { encodeStreamEvent, FORWARDED_EVENTS, type StreamEventName } from '../core/stream-events.ts';
import { endsAtStop } from '../http/drain.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from './contract.ts';
import { OBSERVE_ROUTES } from './contracts/observe.ts';
import { StreamWriter } from './stream-writer.ts';

export { STREAM_BACKLOG_BYTES } from './stream-writer.ts';

/**
 * Watching the sandbox: the recent request log, and a Server-Sent Events
 * stream of requests, domain events, webhook deliveries, rate-limit changes
 * and resets (the dashboard reads it). Every frame's shape is the shared zod
 * schema of src/core/stream-events.ts, which the dashboard decodes with.
 */
export const STREAM_EVENT_TYPES = FORWARDED_EVENTS;
const HEARTBEAT_MS = 15_000;

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
      endsAtStop(res); // a stop ends it at once rather than waiting for it until its deadline
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-request-id': request.id,
      });
      res.write(`retry: 1000\n${encodeStreamEvent('hello', { now: ctx.clock.iso(), clock: ctx.clock.mode })}`);
      const writer = new StreamWriter(res, request.query.requests === 'batched');
      const withDetail = request.query.detail === 'full';
      const handlers: { [K in StreamEventName & keyof SandboxEvents]: (payload: SandboxEvents[K]) => void } = {
        request: (payload) => writer.request(withDetail ? ctx.requestLog.withDetail(payload) : payload),
        domain: (payload) => writer.frame(encodeStreamEvent('domain', payload)),
        delivery: (payload) => writer.frame(encodeStreamEvent('delivery', payload)),
        'rate-limit': (payload) => writer.rateLimit(payload),
        reset: (payload) => writer.frame(encodeStreamEvent('reset', payload)),
      };
      // ?events=: only what the client reads. An event no client reads is not even built (the
      // rate-limit change of every /v1 request, a request's capture), so a page showing deliveries
      // costs /v1 nothing per request (issue 25: throughput with the inspector open)
      const wanted = request.query.events?.split(',') ?? STREAM_EVENT_TYPES;
      const unsubscribe = STREAM_EVENT_TYPES.filter((type) => wanted.includes(type)).map((type) => ctx.bus.on(type, handlers[type] as never));
      // a watcher makes the request hooks capture headers and bodies (docs/dashboard.md); capture=off: a
      // client that only shows that requests happened (the inspector's Keys view) makes /v1 pay for none
      const captures = wanted.includes('request') && (withDetail || request.query.capture === 'on');
      const unwatch = captures ? ctx.requestLog.watch() : () => undefined;
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      request.raw.on('close', () => {
        clearInterval(heartbeat);
        writer.close();
        unwatch();
        for (const off of unsubscribe) off();
      });
    },
  });
}
