import type { SandboxContext } from '../context.ts';
import { notFound } from '../core/errors.ts';
import { encodeStreamEvent, FORWARDED_EVENTS } from '../core/stream-events.ts';
import { endsAtStop } from '../http/drain.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { OBSERVE_ROUTES } from './contracts/observe.ts';
import { StreamHub } from './stream-hub.ts';

export { STREAM_BACKLOG_BYTES } from './stream-hub.ts';

/**
 * Watching the sandbox: the recent request log, and a Server-Sent Events
 * stream of requests, domain events, webhook deliveries, rate-limit changes
 * and resets (the dashboard reads it). Every frame's shape is the shared zod
 * schema of src/core/stream-events.ts, which the dashboard decodes with.
 */
export const STREAM_EVENT_TYPES = FORWARDED_EVENTS;

export function registerObserveRoutes(app: ZodApp, ctx: SandboxContext): void {
  // one per control plane: clients with the same options share each event's encoding (stream-hub.ts)
  const hub = new StreamHub(ctx.bus, ctx.requestLog, ctx.options.maxStreamClients);
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
      hub.admit(); // past the cap: the 409, before anything is written
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
      // ?events=: only what the client reads (so /v1 throughput holds with the inspector open)
      const wanted = request.query.events?.split(',') ?? STREAM_EVENT_TYPES;
      const withDetail = request.query.detail === 'full';
      const events = STREAM_EVENT_TYPES.filter((type) => wanted.includes(type));
      const leave = hub.join(res, { detail: withDetail, batched: request.query.requests === 'batched', events });
      // a watcher makes the request hooks capture headers and bodies (docs/dashboard.md); capture=off: a
      // client that only shows that requests happened (the inspector's Keys view) makes /v1 pay for none
      const captures = wanted.includes('request') && (withDetail || request.query.capture === 'on');
      const unwatch = captures ? ctx.requestLog.watch() : () => undefined;
      const end = () => {
        leave();
        unwatch();
      };
      // a client gone before this line would never send 'close': its place in the cap is freed now
      if (request.raw.socket?.destroyed ?? true) end();
      else request.raw.on('close', end);
    },
  });
}
