import { z } from 'zod';
import type { SandboxContext } from '../context.ts';
import type { SandboxEvents } from '../core/events.ts';
import type { ZodApp } from '../resources/types.ts';

/**
 * Watching the sandbox: the recent request log, and a Server-Sent Events
 * stream of requests, domain events, webhook deliveries, rate-limit changes
 * and resets (the dashboard reads it).
 */
export const STREAM_EVENT_TYPES = ['request', 'domain', 'delivery', 'rate-limit', 'reset'] as const;
const HEARTBEAT_MS = 15_000;

export function registerObserveRoutes(app: ZodApp, ctx: SandboxContext): void {
  app.get('/requests', {
    schema: { querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }) },
  }, async (request) => ({ data: ctx.requestLog.recent(request.query.limit) }));

  app.delete('/requests', { schema: { response: { 200: z.object({ data: z.object({ cleared: z.boolean() }) }) } } }, async () => {
    ctx.requestLog.clear();
    return { data: { cleared: true } };
  });

  app.get('/stream', async (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-request-id': request.id,
    });
    res.write(`retry: 1000\nevent: hello\ndata: ${JSON.stringify({ now: ctx.clock.iso(), clock: ctx.clock.mode })}\n\n`);
    const unsubscribe = STREAM_EVENT_TYPES.map((type) =>
      ctx.bus.on(type as keyof SandboxEvents, (payload: unknown) => {
        res.write(`event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`);
      }),
    );
    // a watcher makes the request hooks capture headers and bodies (docs/dashboard.md)
    const unwatch = ctx.requestLog.watch();
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    request.raw.on('close', () => {
      clearInterval(heartbeat);
      unwatch();
      for (const off of unsubscribe) off();
    });
  });
}
