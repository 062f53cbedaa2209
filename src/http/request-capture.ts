import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestDetail } from '../core/events.ts';
import { redactHeader, redactJson, redactShapes, redactText } from '../core/redact.ts';

/**
 * Captures of request and response headers and bodies for the dashboard and
 * the inspector (docs/dashboard.md, docs/inspector.md). Taken only while a
 * stream client watches, so the hot path pays nothing otherwise; and even then
 * a capture keeps references only (the headers objects, the parsed body, the
 * payload sent), and is rendered into bounded text when someone reads it: a
 * stream client that asks for details, or GET /__sandbox/requests (so that
 * /v1 throughput holds with an inspector open, which reads one request's details on
 * demand). Authorization is never kept: its scheme and the key's listing prefix stand in for it.
 * Every other secret is redacted as it is rendered (src/core/redact.ts): credential headers, JSON
 * fields named like secrets (an organization key's `key` in its creation answer) and key shapes.
 *
 * /v1 requests are captured at all times (the request a user wants to copy as curl was
 * made before any viewer opened), within the request log's bounds: the newest 200, and 8 MB of
 * bodies all together (requestCaptureBytes); a body is cut at 4 KB when rendered.
 */
export const BODY_EXCERPT_BYTES = 4096;
const MAX_HEADERS = 50;

declare module 'fastify' {
  interface FastifyRequest {
    /** the payload onSend saw, kept (a reference) only while a stream client watches */
    sentPayload: unknown;
  }
}

/**
 * What a capture holds until it is rendered: references, no copies of bodies. Not the request
 * and reply themselves: kept for the newest 200 requests, they (and their sockets) would outlive
 * the young generation, and the collector's copying cost /v1 throughput while a page watched.
 */
export interface RawExchange {
  requestHeaders: FastifyRequest['headers'];
  requestBody: unknown;
  /**
   * The response's header block as Node wrote it to the socket (a string that exists anyway: no
   * copy), parsed when rendered; or, where there is none, a copy of the reply's headers.
   */
  responseHead: string | ReturnType<FastifyReply['getHeaders']>;
  /** the payload onSend saw: text, bytes, a stream */
  payload: unknown;
  /** the listing prefix of the key sent, when the sandbox knows the key (revoked or sent with another scheme included) */
  keyPrefix: string | null;
}

export function captureExchange(request: FastifyRequest, reply: FastifyReply, keyPrefix: string | null): RawExchange {
  const head: unknown = Reflect.get(reply.raw, '_header'); // Node's own field: the header block it wrote
  return {
    requestHeaders: request.headers,
    requestBody: request.body ?? request.refusedBody,
    responseHead: typeof head === 'string' ? head : reply.getHeaders(),
    payload: request.sentPayload,
    keyPrefix,
  };
}

/**
 * What a capture holds, about, in bytes: its bodies (the request's as sent, the response's payload),
 * counted against the request log's byte bound (src/core/request-log.ts). Headers are bounded by
 * Node's header limit and counted as a fixed overhead there.
 */
export function exchangeBytes(raw: RawExchange): number {
  const sent = Number(raw.requestHeaders['content-length']);
  const payload = raw.payload;
  const answered = typeof payload === 'string' ? payload.length : Buffer.isBuffer(payload) ? payload.length : 0;
  return (Number.isFinite(sent) && sent > 0 ? sent : 0) + answered;
}

/** The bounded text of a capture: at most 50 headers, 512 characters a header value, 4 KB a body. */
export function renderExchange(raw: RawExchange): RequestDetail {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.requestHeaders).slice(0, MAX_HEADERS)) {
    if (value === undefined) continue;
    headers[name] = name === 'authorization' ? maskAuthorization(String(value), raw.keyPrefix) : redactHeader(name, String(value)).slice(0, 512);
  }
  const responseHeaders = typeof raw.responseHead === 'string' ? headersOfHead(raw.responseHead) : headersOfReply(raw.responseHead);
  for (const name of Object.keys(responseHeaders)) responseHeaders[name] = redactHeader(name, responseHeaders[name]!);
  return { request: { headers, ...requestBody(raw.requestBody) }, response: { headers: responseHeaders, ...responseBody(raw.payload, responseHeaders) } };
}

/**
 * The Authorization header as sent, its key masked: the scheme kept as written (`Token`,
 * `bearer`, none), then the key's listing prefix and `…`; a key the sandbox does not know keeps as
 * many characters as a listing prefix would (fewer for a short one) and says so. So the inspector
 * shows `Token tcs_test_borealis…`, and Copy as curl can send the same scheme.
 */
export function maskAuthorization(header: string, keyPrefix: string | null): string {
  const parts = header.trim().split(/\s+/);
  const token = parts.length > 1 ? parts.at(-1)! : parts[0]!;
  const scheme = parts.length > 1 ? `${parts.slice(0, -1).join(' ').slice(0, 40)} ` : '';
  if (keyPrefix !== null) return `${scheme}${keyPrefix}…`;
  if (token === '') return header.slice(0, 40);
  const shown = token.slice(0, Math.min(UNKNOWN_KEY_SHOWN, Math.floor(token.length / 2)));
  return `${scheme}${shown}… (not a known key)`;
}

/** as many characters as a workspace key's listing prefix */
const UNKNOWN_KEY_SHOWN = 16;

/** `HTTP/1.1 200 OK\r\nname: value\r\n…\r\n\r\n`: names lower-cased, as Node's getHeaders gives them */
function headersOfHead(head: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1, MAX_HEADERS + 1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

function headersOfReply(replyHeaders: ReturnType<FastifyReply['getHeaders']>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(replyHeaders).slice(0, MAX_HEADERS)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}

/** the payload as sent: text, JSON bytes, other bytes, a stream; none */
function responseBody(payload: unknown, headers: Record<string, string>): { body: string | null; truncated: boolean } {
  if (payload === undefined || payload === null) return { body: null, truncated: false };
  if (typeof payload === 'string') return excerpt(redactedBody(payload));
  if (Buffer.isBuffer(payload)) return isJson(headers) ? jsonBytesExcerpt(payload) : { body: `[${payload.length} bytes]`, truncated: false };
  return { body: '[streamed]', truncated: false };
}

function requestBody(body: unknown): { body: string | null; truncated: boolean } {
  if (body === undefined || body === null) return { body: null, truncated: false };
  if (typeof body === 'string') return excerpt(redactedBody(body));
  try {
    return excerpt(JSON.stringify(redactJson(body)));
  } catch {
    return { body: '[unserializable]', truncated: false };
  }
}

/** Cached JSON goes out as UTF-8 bytes (src/core/response-cache.ts); the dashboard still shows its text. */
function isJson(headers: Record<string, string>): boolean {
  return String(headers['content-type'] ?? '').startsWith('application/json');
}

function jsonBytesExcerpt(bytes: Buffer): { body: string; truncated: boolean } {
  if (bytes.length <= WHOLE_REDACT_BYTES) return excerpt(redactText(bytes.toString('utf8')));
  // decode a little more than needed: the cut may split a multi-byte character
  const decodeUpTo = BODY_EXCERPT_BYTES * 4;
  const cut = excerpt(redactText(bytes.toString('utf8', 0, decodeUpTo)));
  return { body: cut.body, truncated: true };
}

/**
 * A body is redacted whole, as JSON, when it is at most this large; a larger one is cut first and
 * its excerpt redacted as text (named pairs and shapes), so reading a capture stays cheap.
 */
const WHOLE_REDACT_BYTES = 256 * 1024;

function redactedBody(text: string): string {
  return text.length <= WHOLE_REDACT_BYTES ? redactText(text) : redactShapes(redactText(text.slice(0, BODY_EXCERPT_BYTES * 4)));
}

function excerpt(text: string): { body: string; truncated: boolean } {
  return text.length > BODY_EXCERPT_BYTES ? { body: text.slice(0, BODY_EXCERPT_BYTES), truncated: true } : { body: text, truncated: false };
}
