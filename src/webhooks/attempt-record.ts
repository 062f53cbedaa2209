import { z } from 'zod';
import { USER_AGENT, type SendResult } from './delivery.ts';

/**
 * What the outbox stores of one attempt, and how the control plane's attempt
 * (`{request: {url, headers, body}, response: {status, headers, bodyExcerpt}}`,
 * docs/webhooks.md "Control plane") is rebuilt from it.
 *
 * A delivery keeps its body once, with the target URL and custom headers of its
 * subscription when it was written. An attempt keeps only what changes from one
 * attempt to the next: its time, signature headers, status, latency, error, a
 * few response headers and the first STORED_EXCERPT_BYTES of the response body.
 * The request it sent is the delivery's body and target plus those signature
 * headers; a URL or custom headers the subscription changed since are stored on
 * the attempt that used them. A copy of the whole request on each attempt would
 * cost 6.2 KB per delivery after 2 attempts, 23 KB after 11.
 */
export const STORED_EXCERPT_BYTES = 512;
/** Response headers that explain an outcome (a Retry-After and the Date it is measured from, a redirect not followed). */
export const KEPT_RESPONSE_HEADERS = ['content-type', 'date', 'location', 'retry-after'] as const;
const KEPT_HEADER_CHARS = 256;

const Headers = z.record(z.string(), z.string());

export const StoredAttemptSchema = z.object({
  number: z.number().int().min(1),
  trigger: z.enum(['initial', 'retry', 'replay']),
  at: z.iso.datetime().describe('sandbox clock'),
  /** webhook-timestamp (wall-clock Unix seconds) and webhook-signature of this attempt; webhook-id is the delivery id */
  timestamp: z.string(),
  signature: z.string(),
  /** the target, only when the subscription's URL had changed since the delivery was written */
  url: z.string().optional(),
  /** the custom headers, only when the subscription's had changed since the delivery was written */
  headers: Headers.nullable().optional(),
  /** null when no response arrived */
  status: z.number().int().nullable(),
  responseHeaders: Headers.optional(),
  /** the first STORED_EXCERPT_BYTES of the response body */
  excerpt: z.string().optional(),
  latencyMs: z.number().min(0),
  error: z.string().nullable(),
});
export type StoredAttempt = z.infer<typeof StoredAttemptSchema>;

/** The public attempt (control plane). Older database files stored attempts in this shape, a whole request each; they are read as they are. */
export const AttemptSchema = z.object({
  number: z.number().int().min(1),
  trigger: z.enum(['initial', 'retry', 'replay']),
  at: z.iso.datetime().describe('sandbox clock'),
  request: z.object({ url: z.string(), headers: Headers, body: z.string() }).describe("rebuilt from the delivery and the attempt's signature headers"),
  response: z
    .object({
      status: z.number().int(),
      headers: Headers.describe(`only ${KEPT_RESPONSE_HEADERS.join(', ')} are kept`),
      bodyExcerpt: z.string().describe(`the first ${STORED_EXCERPT_BYTES} bytes of the body`),
    })
    .nullable()
    .describe('null when no response arrived (timeout, refused, ...)'),
  latencyMs: z.number().min(0),
  error: z.string().nullable(),
});
export type Attempt = z.infer<typeof AttemptSchema>;

/** What a delivery row keeps of its request: the target when it was written. */
export interface DeliveryTarget {
  body: string;
  /** absent on rows of older database files, whose attempts carry the whole request */
  url?: string | undefined;
  headers?: Record<string, string> | null | undefined;
}

export interface AttemptInput {
  number: number;
  trigger: StoredAttempt['trigger'];
  at: string;
  url: string;
  customHeaders: Record<string, string> | null;
  signature: { 'webhook-timestamp': string; 'webhook-signature': string };
  result: SendResult;
}

export function storedAttempt(target: DeliveryTarget, input: AttemptInput): StoredAttempt {
  const { response } = input.result;
  const responseHeaders = response ? keptHeaders(response.headers) : undefined;
  return {
    number: input.number,
    trigger: input.trigger,
    at: input.at,
    timestamp: input.signature['webhook-timestamp'],
    signature: input.signature['webhook-signature'],
    ...(target.url === input.url ? {} : { url: input.url }),
    ...(target.url !== undefined && sameHeaders(target.headers ?? null, input.customHeaders) ? {} : { headers: input.customHeaders }),
    status: response?.status ?? null,
    ...(responseHeaders ? { responseHeaders } : {}),
    ...(response?.bodyExcerpt ? { excerpt: utf8Prefix(response.bodyExcerpt, STORED_EXCERPT_BYTES) } : {}),
    latencyMs: input.result.latencyMs,
    error: input.result.error,
  };
}

/** The request an attempt sent, as it was sent: custom headers, then the sender's, then the signature. */
export function requestHeaders(deliveryId: string, custom: Record<string, string> | null, timestamp: string, signature: string): Record<string, string> {
  return {
    ...(custom ?? {}),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': deliveryId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
  };
}

export function attemptView(delivery: DeliveryTarget & { id: string }, stored: StoredAttempt | Attempt): Attempt {
  if ('request' in stored) return stored; // an older file's attempt, stored whole
  const headers = stored.headers !== undefined ? stored.headers : (delivery.headers ?? null);
  return {
    number: stored.number,
    trigger: stored.trigger,
    at: stored.at,
    request: { url: stored.url ?? delivery.url ?? '', headers: requestHeaders(delivery.id, headers, stored.timestamp, stored.signature), body: delivery.body },
    response: stored.status === null ? null : { status: stored.status, headers: stored.responseHeaders ?? {}, bodyExcerpt: stored.excerpt ?? '' },
    latencyMs: stored.latencyMs,
    error: stored.error,
  };
}

function keptHeaders(headers: Record<string, string>): Record<string, string> | undefined {
  let kept: Record<string, string> | undefined;
  for (const name of KEPT_RESPONSE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) (kept ??= {})[name] = value.slice(0, KEPT_HEADER_CHARS);
  }
  return kept;
}

function sameHeaders(a: Record<string, string> | null, b: Record<string, string> | null): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a![k] === b?.[k]);
}

/** The longest prefix of `text` of at most `bytes` UTF-8 bytes that does not split a character. */
export function utf8Prefix(text: string, bytes: number): string {
  if (text.length * 3 <= bytes || Buffer.byteLength(text) <= bytes) return text;
  const buffer = Buffer.from(text).subarray(0, bytes);
  let end = buffer.length;
  // step back over a cut multi-byte sequence: continuation bytes are 10xxxxxx
  let start = end - 1;
  while (start > 0 && (buffer[start]! & 0xc0) === 0x80) start--;
  const lead = buffer[start]!;
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (start + length > end) end = start;
  return buffer.subarray(0, end).toString('utf8');
}
