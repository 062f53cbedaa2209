import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { WORKSPACE_LIMITS } from '../core/rate-limit.ts';
import type { SandboxContext } from '../context.ts';
import { requestIdFor } from './request-hooks.ts';

/**
 * What Node's HTTP parser refuses before any route sees it (a garbage request line, a header
 * without a colon, headers over the size limit, a request too slow to arrive). Fastify's default
 * answer is `{"error":"Bad Request","message":"Client Error","statusCode":400}` without
 * X-Request-ID or X-RateLimit-*; the description says every response carries those,
 * in its error shape. The headers are those of an anonymous request, as for the router's own
 * refusals (base-app.ts), and the connection is closed: the parser cannot find the next request.
 */
export function clientErrorHandler(ctx: SandboxContext) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // a reset connection has nobody to answer (https://nodejs.org/api/http.html#event-clienterror)
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) socket.write(clientErrorResponse(ctx, err.code));
    socket.destroy();
  };
}

function refusal(code: string | undefined): { status: number; body: { error: string; code: string } } {
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, body: { error: 'Request headers too large: at most 16 KiB in all', code: 'HEADERS_TOO_LARGE' } };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, body: { error: 'Request timeout: the request did not arrive in full in time', code: 'REQUEST_TIMEOUT' } };
  return {
    status: 400,
    body: { error: `Malformed HTTP request: the request line or a header could not be parsed${code ? ` (${code})` : ''}`, code: 'MALFORMED_REQUEST' },
  };
}

/** The whole HTTP/1.1 response, as bytes for the socket. */
export function clientErrorResponse(ctx: SandboxContext, code: string | undefined): string {
  const { status, body } = refusal(code);
  const json = JSON.stringify(body);
  const rate = ctx.rateLimiter.peek('anonymous', WORKSPACE_LIMITS.sandbox);
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `X-Request-ID: ${requestIdFor(undefined)}`,
    `X-RateLimit-Limit: ${rate.limit}`,
    `X-RateLimit-Remaining: ${rate.remaining}`,
    `X-RateLimit-Reset: ${rate.reset}`,
    `X-Sandbox-Reason: ${body.code} ${body.error}`,
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${json}`;
}
