import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unauthorized } from '../core/errors.ts';
import { WORKSPACE_LIMITS, type RateDecision } from '../core/rate-limit.ts';
import { isLoopback } from '../config.ts';
import type { SandboxContext } from '../context.ts';
import { hostRefusal } from '../core/host-guard.ts';
import { redactShapes, redactUrl } from '../core/redact.ts';
import { sendApiError, toApiError } from './error-handler.ts';
import { captureExchange, exchangeBytes, renderExchange } from './request-capture.ts';
import { warningsOf } from './warnings.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A caller-supplied X-Request-ID is echoed when sane, so traces join up; else one is made. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : `req_${randomUUID().replace(/-/g, '')}`;
}

/**
 * The hooks every request passes (docs/architecture.md). Authentication, the
 * control-plane token, rate limits and idempotency are not here: they belong to
 * the /v1 and /__sandbox plugin scopes (api-scope.ts, control-scope.ts), which
 * also set `request.area`. Classification is therefore by the scope the router
 * matched, never by the raw URL. Every response gets X-Request-ID and the
 * X-RateLimit-* headers (API description, "Common request rules"), errors included.
 */
export function registerRequestHooks(app: FastifyInstance, ctx: SandboxContext): void {
  app.decorateRequest('authenticated', null);
  // Route handlers read `request.principal`, typed non-null: only the /v1 scope's
  // auth hook sets it, and reading it anywhere else fails closed with a 401.
  app.decorateRequest('principal', {
    getter(this: { authenticated: import('../core/auth.ts').Principal | null }) {
      if (!this.authenticated) throw unauthorized();
      return this.authenticated;
    },
  });
  app.decorateRequest('area', 'other');
  app.decorateRequest('rate', null);
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('startedAt', 0);
  app.decorateRequest('reason', null);
  app.decorateRequest('sentPayload', undefined);
  app.decorateRequest('refusedBody', undefined);

  // Callback-style hooks (`done`): an `async` hook costs a promise and a
  // microtask hop on every request, and most requests return at its first line
  // (docs/benchmarks.md, "Throughput"). Only a POST with an Idempotency-Key awaits.
  // The Host check (DNS rebinding, src/core/host-guard.ts) runs here, first, for every
  // request of both apps: /v1, /__sandbox, the health check, GET / and every 404.
  const checkHost = isLoopback(ctx.options.host);
  const rules = { allowedHosts: ctx.options.allowedHosts };
  let lastAllowedHost: string | undefined; // a client sends one Host again and again: skip the parse
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    reply.header('x-request-id', request.id);
    const host = request.headers.host;
    if (!checkHost || host === lastAllowedHost) return done();
    const refusal = hostRefusal(host, rules);
    if (refusal) return done(refusal);
    lastAllowedHost = host;
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    setRateHeaders(reply, request.rate ?? anonymousRate(ctx));
    // over a limit but let through (a workspace with rateLimits: report, or --no-rate-limits): say so (X-Sandbox-Rate-Limit)
    if (request.rate?.allowed && request.rate.retryAfter > 0) reply.header(RATE_REPORT_HEADER, rateReport(request.rate.retryAfter));
    // a reference only, rendered if someone reads it (request-capture.ts): /v1 at all times
    if (request.area === 'api') request.sentPayload = payload;
    const principal = request.authenticated;
    if (!request.idempotencyKey || !principal) return done(null, payload);
    const key = request.idempotencyKey;
    request.idempotencyKey = null;
    ctx.clock
      .run(principal.workspace.id, () =>
        ctx.idempotency.finish(principal.workspace.id, key, request.method, request.url, request.body, reply.statusCode, payloadText(payload)),
      )
      .then(
        () => done(null, payload),
        (err: Error) => done(err),
      );
  });

  app.addHook('onResponse', (request, reply, done) => {
    const principal = request.authenticated;
    if (request.area === 'api') {
      ctx.runReport.request({
        id: request.id,
        method: request.method,
        route: request.routeOptions.url,
        url: redactUrl(request.url),
        status: reply.statusCode,
        warnings: request.warnings,
        reason: request.reason === null ? null : redactShapes(request.reason),
        rateReported: request.rate?.allowed === true && request.rate.retryAfter > 0,
      });
    }
    if (request.idempotencyKey && principal) ctx.idempotency.release(principal.workspace.id, request.idempotencyKey);
    emitRequest(ctx, request, reply, reply.statusCode);
    done();
  });

  app.setErrorHandler((err, request, reply) => sendApiError(reply, toApiError(err, request, ctx.options.bodyLimit)));
}

/**
 * The request log's entry (and the stream's request event) for a request
 * outside the control plane: from onResponse, and for a connection a fault
 * rule dropped, which never gets there (status 0: no answer).
 */
export function emitRequest(ctx: SandboxContext, request: FastifyRequest, reply: FastifyReply, status: number): void {
  // a bundle's sandbox (src/core/read-only.ts) shows the run's requests, not the ones it refuses now
  if (!ctx.bus.hasListeners('request') || request.area === 'control' || ctx.readOnly.reason !== null) return;
  const principal = request.authenticated;
  // a refused request (revoked key, wrong scheme, ...) still names the key and workspace the sandbox can tell
  const who = principal
    ? { keyPrefix: principal.keyPrefix, workspaceId: principal.workspace.id }
    : request.headers.authorization
      ? ctx.auth.identify(request.headers.authorization)
      : null;
  // /v1 at all times, within the log's bounds (so Copy as curl works on any of them); elsewhere (404s, the health check) while someone watches
  if (status !== 0 && (request.area === 'api' || ctx.requestLog.capturing)) {
    const raw = captureExchange(request, reply, who?.keyPrefix ?? null);
    ctx.requestLog.keepDetail(request.id, () => renderExchange(raw), exchangeBytes(raw));
  }
  ctx.bus.emit('request', {
    requestId: request.id,
    method: request.method,
    // a key put in the URL (the API description: "in the header only, never in URLs") is not kept
    path: redactUrl(request.url),
    status,
    latencyMs: Math.round((performance.now() - request.startedAt) * 100) / 100,
    workspaceId: who?.workspaceId ?? null,
    keyPrefix: who?.keyPrefix ?? null,
    at: ctx.clock.iso(),
    ...warningsOf(request),
    ...(request.reason ? { reason: redactShapes(request.reason) } : {}),
  });
}

/** The stored answer of an idempotent POST: JSON text, whether it went out as a string or as bytes. */
function payloadText(payload: unknown): string {
  return Buffer.isBuffer(payload) ? payload.toString('utf8') : String(payload ?? '');
}

/** Unauthenticated requests are not counted; they are told the sandbox-tier quota. */
function anonymousRate(ctx: SandboxContext): RateDecision {
  return ctx.rateLimiter.peek('anonymous', WORKSPACE_LIMITS.sandbox);
}

/** Sandbox-only, beside the documented X-RateLimit-* headers: the 429 a request would have had. */
export const RATE_REPORT_HEADER = 'x-sandbox-rate-limit';
const rateReport = (retryAfter: number) => `exceeded; not enforced in this workspace (rateLimits: report); would be 429 with retry_after ${retryAfter}`;

function setRateHeaders(reply: FastifyReply, rate: RateDecision): void {
  reply.header('x-ratelimit-limit', String(rate.limit));
  reply.header('x-ratelimit-remaining', String(rate.remaining));
  reply.header('x-ratelimit-reset', String(rate.reset));
}
