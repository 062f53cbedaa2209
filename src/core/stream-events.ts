import { z } from 'zod';
import { DeliveryUpdateSchema, RateLimitChangeSchema } from './event-payloads.ts';
import type { DomainEvent, RequestLogEntry, SandboxEvents } from './events.ts';

export { DeliveryUpdateSchema, RateLimitChangeSchema, type DeliveryUpdate, type RateLimitChange } from './event-payloads.ts';

/**
 * Every event of the live stream (GET /__sandbox/stream), as one zod schema
 * that the server and the dashboard both import: the server encodes with
 * `encodeStreamEvent` (typed by these schemas) and the dashboard decodes with
 * `decodeStreamEvent`. The compile-time checks at the end make the bus payloads
 * and the schemas fail the type check together if one of them changes alone.
 * A field the server adds beyond a schema is dropped on decoding, never an
 * error, so an older dashboard still reads a newer sandbox (docs/dashboard.md).
 */
const RequestDetailPartSchema = z.object({
  headers: z.record(z.string(), z.string()),
  body: z.string().nullable(),
  truncated: z.boolean(),
});

export const RequestEventSchema = z
  .object({
    requestId: z.string(),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    latencyMs: z.number(),
    workspaceId: z.string().nullable(),
    keyPrefix: z.string().nullable(),
    at: z.string(),
    detail: z.object({ request: RequestDetailPartSchema, response: RequestDetailPartSchema }).optional(),
    /** what the sandbox accepted only by guessing (X-Sandbox-Warning), when it did */
    warnings: z.array(z.object({ code: z.string(), message: z.string() })).optional(),
    /** why the sandbox refused it (X-Sandbox-Reason: `CODE sentence`), when it did */
    reason: z.string().optional(),
  })
  .meta({ id: 'RequestEvent' }); // the request log's listing and one entry: written once in the OpenAPI document

export const DomainEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  workspaceId: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const ResetEventSchema = z.object({ at: z.string() });
export const HelloEventSchema = z.object({ now: z.string(), clock: z.enum(['real', 'manual']) });

export const STREAM_EVENT_SCHEMAS = {
  hello: HelloEventSchema,
  request: RequestEventSchema,
  /** the request events of one write, oldest first, as a table, for a client that asked `?requests=batched` (the inspector) */
  requests: z.object({
    columns: z.array(z.string()),
    /** one array a request, its values in the order of `columns`; null where the field is null or absent (warnings, reason, detail) */
    rows: z.array(z.array(z.unknown())),
  }),
  domain: DomainEventSchema,
  delivery: DeliveryUpdateSchema,
  'rate-limit': RateLimitChangeSchema,
  reset: ResetEventSchema,
} as const;

export type StreamEventName = keyof typeof STREAM_EVENT_SCHEMAS;
export type StreamPayload<K extends StreamEventName> = z.output<(typeof STREAM_EVENT_SCHEMAS)[K]>;

/** The bus events the stream forwards, in the order the server subscribes to them. */
export const FORWARDED_EVENTS = ['request', 'domain', 'delivery', 'rate-limit', 'reset'] as const satisfies readonly (keyof SandboxEvents & StreamEventName)[];

/**
 * The fields of a request event, in the order of a batch's columns. A table, not an array of
 * objects: a busy second's requests are a third fewer bytes without their keys, and the browser
 * that reads them pays per byte (and /v1 throughput must hold with the inspector open).
 */
export const REQUEST_COLUMNS = [
  'requestId',
  'method',
  'path',
  'status',
  'latencyMs',
  'workspaceId',
  'keyPrefix',
  'at',
  'warnings',
  'reason',
  'detail',
] as const satisfies readonly (keyof RequestLogEntry)[];

/** A run of request events as one `requests` frame (`?requests=batched`). */
export function encodeRequestBatch(entries: readonly RequestLogEntry[]): string {
  const rows = entries.map((entry) => REQUEST_COLUMNS.map((column) => entry[column] ?? null));
  return encodeStreamEvent('requests', { columns: [...REQUEST_COLUMNS], rows });
}

/** One SSE frame; `payload` must satisfy the event's schema (checked by the type checker). */
export function encodeStreamEvent<K extends StreamEventName>(event: K, payload: z.input<(typeof STREAM_EVENT_SCHEMAS)[K]>): string {
  return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

export type DecodedStreamEvent =
  | { [K in StreamEventName]: { ok: true; event: K; payload: StreamPayload<K> } }[StreamEventName]
  | { ok: false; event: string; reason: string };

/** Parses one received event; never throws: an unknown name, bad JSON or a wrong shape is `ok: false`. */
export function decodeStreamEvent(event: string, data: string): DecodedStreamEvent {
  if (!Object.hasOwn(STREAM_EVENT_SCHEMAS, event)) return { ok: false, event, reason: 'unknown event' };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { ok: false, event, reason: 'not JSON' };
  }
  const parsed = STREAM_EVENT_SCHEMAS[event as StreamEventName].safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, event, reason: `${issue?.path.join('.') || 'data'}: ${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, event, payload: parsed.data } as DecodedStreamEvent;
}

// What the bus carries must be what the schemas accept: change one without the other and the type check fails.
type Accepts<Schema extends z.ZodType, T extends z.input<Schema>> = T;
export type StreamPayloadChecks = [
  Accepts<typeof RequestEventSchema, RequestLogEntry>,
  Accepts<typeof DomainEventSchema, DomainEvent>,
  Accepts<typeof DeliveryUpdateSchema, SandboxEvents['delivery']>,
  Accepts<typeof RateLimitChangeSchema, SandboxEvents['rate-limit']>,
  Accepts<typeof ResetEventSchema, SandboxEvents['reset']>,
];
