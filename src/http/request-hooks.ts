import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/auth.ts';
import { ApiError, rateLimited } from '../core/errors.ts';
import { WORKSPACE_LIMITS, type RateDecision } from '../core/rate-limit.ts';
import { hashesEqual, hashSecret } from '../core/secrets.ts';
import type { SandboxContext } from '../context.ts';
import { sendApiError, toApiError } from './error-handler.ts';
import { captureDetail, rememberResponseBody } from './request-capture.ts';
import { warningsOf } from './warnings.ts';

export const API_PREFIX = '/v1';
export const CONTROL_PREFIX = '/__sandbox';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A caller-supplied X-Request-ID is echoed when sane, so traces join up; else one is made. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : `req_${randomUUID().replace(/-/g, '')}`;
}

export const isApi = (url: string) => url === API_PREFIX || url.startsWith(`${API_PREFIX}/`) || url.startsWith(`${API_PREFIX}?`);
const isControl = (url: string) => url === CONTROL_PREFIX || url.startsWith(`${CONTROL_PREFIX}/`) || url.startsWith(`${CONTROL_PREFIX}?`);

/**
 * The request pipeline (docs/architecture.md):
 * request id -> auth (key -> principal) -> rate limit -> scope -> idempotency
 * -> validation -> route. Every response gets X-Request-ID and the X-RateLimit-*
 * headers (API description, "Common request rules"), errors included.
 */
export function registerRequestHooks(app: FastifyInstance, ctx: SandboxContext): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('rate', null);
  app.decorateRequest('idempotencyKey', null);
  app.decorateRequest('startedAt', 0);

  app.addHook('onRequest', async (request, reply) => {
    request.startedAt = performance.now();
    reply.header('x-request-id', request.id);
    if (isControl(request.url)) return checkControlToken(request, ctx);
    if (!isApi(request.url)) return;
    let principal: Principal;
    try {
      principal = ctx.auth.authenticate(request.headers.authorization, header(request, 'x-workspace-id'));
    } catch (err) {
      if (await injectFault(request, reply, ctx, null)) return reply;
      throw err;
    }
    request.principal = principal;
    if (await injectFault(request, reply, ctx, principal)) return reply;
    const buckets = [{ key: `workspace:${principal.workspace.id}`, policy: WORKSPACE_LIMITS[principal.workspace.mode] }];
    if (principal.ratePolicy) buckets.push({ key: `key:${principal.keyId}`, policy: principal.ratePolicy });
    request.rate = ctx.rateLimiter.take(buckets, ctx.options.enforceRateLimits);
    if (ctx.bus.hasListeners('rate-limit')) {
      ctx.bus.emit('rate-limit', { bucket: buckets[buckets.length - 1]!.key, limit: request.rate.limit, remaining: request.rate.remaining, reset: request.rate.reset });
    }
    if (!request.rate.allowed) throw rateLimited(request.rate.retryAfter);
    const scope = request.routeOptions.config?.scope;
    if (scope) ctx.auth.requireScope(principal, scope);
  });

  app.addHook('preHandler', async (request, reply) => {
    const key = header(request, 'idempotency-key');
    if (request.method !== 'POST' || key === undefined || !request.principal || !isApi(request.url)) return;
    const outcome = ctx.idempotency.begin(request.principal.workspace.id, key, request.method, request.url, request.body);
    if (outcome.kind === 'replay') {
      return reply
        .code(outcome.record.statusCode)
        .header('idempotent-replayed', 'true')
        .type('application/json')
        .send(outcome.record.body);
    }
    request.idempotencyKey = key;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    setRateHeaders(reply, request.rate ?? anonymousRate(ctx));
    if (request.idempotencyKey && request.principal) {
      const key = request.idempotencyKey;
      request.idempotencyKey = null;
      await ctx.idempotency.finish(request.principal.workspace.id, key, request.method, request.url, request.body, reply.statusCode, String(payload ?? ''));
    }
    // only while the dashboard watches (docs/dashboard.md): the hot path stays free
    if (ctx.requestLog.capturing && isApi(request.url)) rememberResponseBody(request, payload);
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (request.idempotencyKey && request.principal) ctx.idempotency.release(request.principal.workspace.id, request.idempotencyKey);
    if (!ctx.bus.hasListeners('request') || isControl(request.url)) return;
    ctx.bus.emit('request', {
      requestId: request.id,
      method: request.method,
      path: request.url,
      status: reply.statusCode,
      latencyMs: Math.round((performance.now() - request.startedAt) * 100) / 100,
      workspaceId: request.principal?.workspace.id ?? null,
      keyPrefix: request.principal?.keyPrefix ?? null,
      at: ctx.clock.iso(),
      ...warningsOf(request),
      ...(ctx.requestLog.capturing ? { detail: captureDetail(request, reply, request.principal?.keyPrefix ?? null) } : {}),
    });
  });

  app.setErrorHandler((err, request, reply) => sendApiError(reply, toApiError(err, request, ctx.options.bodyLimit)));
}

/** Unauthenticated requests are not counted; they are told the sandbox-tier quota. */
function anonymousRate(ctx: SandboxContext): RateDecision {
  return ctx.rateLimiter.peek('anonymous', WORKSPACE_LIMITS.sandbox);
}

function setRateHeaders(reply: FastifyReply, rate: RateDecision): void {
  reply.header('x-ratelimit-limit', String(rate.limit));
  reply.header('x-ratelimit-remaining', String(rate.remaining));
  reply.header('x-ratelimit-reset', String(rate.reset));
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function checkControlToken(request: FastifyRequest, ctx: SandboxContext): void {
  if (!ctx.controlToken) return;
  const given = header(request, 'x-sandbox-token') ?? /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!given || !hashesEqual(hashSecret(given), hashSecret(ctx.controlToken))) {
    throw new ApiError(401, { error: 'Unauthorized: the control plane needs the sandbox control token (X-Sandbox-Token)' });
  }
}

/**
 * Applies the first matching fault rule (sandbox-only, docs/control-plane.md):
 * latency first, then a dropped connection or a canned answer. Returns true
 * when the request was answered here. Latency is real time: it emulates the
 * network, not the service's clock.
 */
async function injectFault(request: FastifyRequest, reply: FastifyReply, ctx: SandboxContext, principal: Principal | null): Promise<boolean> {
  if (!ctx.faults.active()) return false;
  const fault = ctx.faults.take({
    method: request.method,
    path: request.url,
    workspaceId: principal?.workspace.id ?? null,
    keyId: principal?.keyId ?? null,
    keyPrefix: principal?.keyPrefix ?? null,
  });
  if (!fault) return false;
  if (fault.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
  if (fault.drop) {
    reply.hijack();
    request.raw.socket?.destroy();
    reply.raw.destroy();
    return true;
  }
  if (fault.status === undefined) return false;
  reply.code(fault.status).header('x-sandbox-fault', fault.id);
  for (const [name, value] of Object.entries(fault.headers ?? {})) reply.header(name, value);
  // pre-serialized: a fault's body is the user's, not the route's declared shape
  reply.type('application/json').send(JSON.stringify(fault.body === undefined ? { error: `Injected fault ${fault.id}` } : fault.body));
  return true;
}
