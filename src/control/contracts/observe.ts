import { z } from 'zod';
import { FORWARDED_EVENTS, RequestEventSchema } from '../../core/stream-events.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

const STREAM_EVENT_NAME = `(?:${FORWARDED_EVENTS.join('|')})`;
const STREAM_EVENTS_LIST = new RegExp(`^${STREAM_EVENT_NAME}(?:,${STREAM_EVENT_NAME})*$`);

/** The request log and the live event stream (docs/control-plane.md, docs/dashboard.md). */
export const OBSERVE_ROUTES = defineRoutes({
  requests: {
    method: 'GET',
    path: '/requests',
    query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
    data: z.array(RequestEventSchema),
    summary: 'The last requests to /v1 (up to 1,000 kept), newest first',
  },
  request: {
    method: 'GET',
    path: '/requests/:requestId',
    params: z.object({ requestId: z.string() }),
    data: RequestEventSchema,
    errors: [404],
    inferred: true,
    summary:
      'One request of the log, with its headers and bodies while they are kept (the newest 200 captured while a stream client watches); 404 once it left the log',
  },
  clearRequests: { method: 'DELETE', path: '/requests', data: z.object({ cleared: z.boolean() }), summary: 'Clear the request log' },
  stream: {
    method: 'GET',
    path: '/stream',
    raw: 'sse',
    query: z.object({
      detail: z
        .enum(['full', 'none'])
        .default('full')
        .describe(
          "full: each request event carries its headers and bodies (the dashboard); none: not (the inspector reads one request's with GET /requests/:requestId, so /v1 does not pay for rendering every one)",
        ),
      events: z
        .string()
        .regex(STREAM_EVENTS_LIST, `a comma-separated list of ${FORWARDED_EVENTS.join(', ')}`)
        .optional()
        .describe(`the events to receive, comma-separated (${FORWARDED_EVENTS.join(', ')}); all by default. hello always comes first`),
      capture: z
        .enum(['on', 'off'])
        .default('on')
        .describe(
          "on: while this client streams requests, each one's headers and bodies are kept (the newest 200) for GET /requests/:requestId; off: not for this client (a view that only shows that requests happened, such as the inspector's Keys view); detail=full captures either way",
        ),
      requests: z
        .enum(['each', 'batched'])
        .default('each')
        .describe(
          'each: one `request` event a request; batched: the requests of one write as one `requests` event, a table {columns, rows} (the inspector: one JSON parse a write, not one a request)',
        ),
    }),
    // each event's data has its own schema: src/core/stream-events.ts
    data: z.string().describe('Server-Sent Events: hello, request (or requests), domain, delivery, rate-limit, reset (docs/dashboard.md)'),
    // 409: the sandbox already streams to maxStreamClients clients (the message says how to close one or raise it)
    errors: [409],
    summary: 'Live Server-Sent Events of requests, domain events, deliveries, rate limits and resets; 409 past the cap of stream clients (100 by default)',
  },
});
