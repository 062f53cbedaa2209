import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestDetail } from '../core/events.ts';

/**
 * Bounded captures of request and response headers and bodies for the
 * dashboard (docs/dashboard.md). Taken only while a stream client watches, so
 * the hot path pays nothing otherwise. Authorization is never kept: the key
 * prefix stands in for it.
 */
export const BODY_EXCERPT_BYTES = 4096;
const MAX_HEADERS = 50;

/** The serialized response body seen in onSend, keyed by request (no decorator needed). */
const responseBodies = new WeakMap<FastifyRequest, { body: string | null; truncated: boolean }>();

export function rememberResponseBody(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  if (typeof payload === 'string') responseBodies.set(request, excerpt(payload));
  else if (Buffer.isBuffer(payload)) responseBodies.set(request, isJson(reply) ? jsonBytesExcerpt(payload) : { body: `[${payload.length} bytes]`, truncated: false });
  else if (payload !== null && payload !== undefined) responseBodies.set(request, { body: '[streamed]', truncated: false });
}

export function captureDetail(request: FastifyRequest, reply: FastifyReply, keyPrefix: string | null): RequestDetail {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers).slice(0, MAX_HEADERS)) {
    if (value === undefined) continue;
    headers[name] = name === 'authorization' ? `Bearer ${keyPrefix ?? '(not a known key)'}…` : String(value).slice(0, 512);
  }
  const responseHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders()).slice(0, MAX_HEADERS)) {
    if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const response = responseBodies.get(request) ?? { body: null, truncated: false };
  responseBodies.delete(request);
  return { request: { headers, ...requestBody(request.body) }, response: { headers: responseHeaders, ...response } };
}

function requestBody(body: unknown): { body: string | null; truncated: boolean } {
  if (body === undefined || body === null) return { body: null, truncated: false };
  if (typeof body === 'string') return excerpt(body);
  try {
    return excerpt(JSON.stringify(body));
  } catch {
    return { body: '[unserializable]', truncated: false };
  }
}

/** Cached JSON goes out as UTF-8 bytes (src/core/response-cache.ts); the dashboard still shows its text. */
function isJson(reply: FastifyReply): boolean {
  return String(reply.getHeader('content-type') ?? '').startsWith('application/json');
}

function jsonBytesExcerpt(bytes: Buffer): { body: string; truncated: boolean } {
  // decode a little more than needed: the cut may split a multi-byte character
  const decodeUpTo = BODY_EXCERPT_BYTES * 4;
  const cut = excerpt(bytes.toString('utf8', 0, Math.min(bytes.length, decodeUpTo)));
  return bytes.length > decodeUpTo ? { body: cut.body, truncated: true } : cut;
}

function excerpt(text: string): { body: string; truncated: boolean } {
  return text.length > BODY_EXCERPT_BYTES ? { body: text.slice(0, BODY_EXCERPT_BYTES), truncated: true } : { body: text, truncated: false };
}
