import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../core/auth.ts';
import { rateLimited, reasonText } from '../core/errors.ts';
import { WORKSPACE_LIMITS } from '../core/rate-limit.ts';
import { faultReason, frozenClockHint, rateLimitedBecause, replayReason, suspendedBecause } from '../core/reasons.ts';
import type { SandboxContext } from '../context.ts';
import { sendApiError } from './error-handler.ts';
import { headerValue } from './headers.ts';
import { emitRequest } from './request-hooks.ts';
import { readRefusedBody } from './refused-body.ts';
import { unknownRoute } from './route-suggest.ts';
import { inferredLimit } from './warnings.ts';
import { idempotencyKeyInvalid, MAX_IDEMPOTENCY_KEY_LENGTH } from '../core/idempotency.ts';
import { readOnlyRefusal } from '../core/read-only.ts';

/**
 * The /v1 scope's own hooks (docs/architecture.md, "Request classification"):
 * auth (key -> principal) -> fault -> rate limit -> scope -> idempotency.
 * They are registered on the scope, not globally, so no route of /v1 (nor its
 * 404) can be reached without them, however the URL is spelt: the router
 * decodes `%761` to `v1`, and so the request lands in this scope and its hooks.
 * Call before any route of the scope is registered.
 */
export function registerApiScope(v1: FastifyInstance, ctx: SandboxContext): void {
  // One callback-style hook for auth, faults, the workspace clock, rate limits
  // and scope: `async` hooks cost a promise and a microtask hop each on every
  // request (docs/benchmarks.md, "Throughput"); only an active fault rule awaits.
  v1.addHook('onRequest', (request, reply, done) => {
    request.area = 'api';
    if (ctx.readOnly.reason !== null) return done(readOnlyRefusal(ctx.readOnly.reason)); // a bundle's sandbox (src/core/read-only.ts)
    if (ctx.faults.active()) {
      authenticateWithFaults(request, reply, ctx).then((answered) => {
        if (!answered) admit(request, ctx, done);
      }, done);
      return;
    }
    try {
      request.authenticated = ctx.auth.authenticate(request.headers.authorization, headerValue(request, 'x-workspace-id'));
    } catch (err) {
      // its body read first, so that its capture (Copy as curl) has it
      return readRefusedBody(request, () => done(err as Error));
    }
    admit(request, ctx, done);
  });

  // Body parsing leaves the async context, so preValidation enters the workspace's clock again.
  v1.addHook('preValidation', (request, _reply, done) => {
    ctx.clock.run(request.authenticated?.workspace.id ?? null, done);
  });

  v1.addHook('preHandler', (request, reply, done) => {
    const key = headerValue(request, 'idempotency-key');
    if (request.method !== 'POST' || key === undefined) return done();
    let outcome: ReturnType<typeof ctx.idempotency.begin>;
    try {
      if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
        inferredLimit(
          request,
          ctx.options.strict,
          `Idempotency-Key is ${key.length} characters; the sandbox infers at most ${MAX_IDEMPOTENCY_KEY_LENGTH} (the API description says "any unique string")`,
          idempotencyKeyInvalid,
        );
      }
      outcome = ctx.idempotency.begin(request.principal.workspace.id, key, request.method, request.url, request.body);
    } catch (err) {
      return done(err as Error);
    }
    if (outcome.kind === 'replay') {
      const { statusCode, body, createdAt } = outcome.record;
      // a replayed refusal says why too (X-Sandbox-Reason), beside the saved body
      const reason = replayReason(statusCode, body, createdAt);
      if (reason) {
        request.reason = reasonText(reason);
        reply.header('x-sandbox-reason', request.reason);
      }
      // answered here: a callback-style hook that replies does not call done
      reply.code(statusCode).header('idempotent-replayed', 'true').type('application/json').send(body);
      return;
    }
    request.idempotencyKey = key;
    done();
  });

  // 401 before 404 under /v1 (docs/api-notes.md): this handler runs after the scope's auth hook
  v1.setNotFoundHandler((request, reply) => sendApiError(reply, unknownRoute(ctx, request.method, request.url)));
}

/**
 * Authentication while fault rules are active: a fault may answer (or drop)
 * even a request whose key is wrong. Resolves true when the request was
 * answered here; rejects with the authentication error otherwise.
 */
async function authenticateWithFaults(request: FastifyRequest, reply: FastifyReply, ctx: SandboxContext): Promise<boolean> {
  let principal: Principal;
  try {
    principal = ctx.auth.authenticate(request.headers.authorization, headerValue(request, 'x-workspace-id'));
  } catch (err) {
    if (await injectFault(request, reply, ctx, null)) return true;
    throw err;
  }
  request.authenticated = principal;
  return injectFault(request, reply, ctx, principal);
}

/**
 * Everything after auth runs on the principal's workspace clock (docs/architecture.md,
 * "Workspace clocks"): suspension, rate limits (API description, "Rate limits") and the route's scope.
 */
function admit(request: FastifyRequest, ctx: SandboxContext, done: (err?: Error) => void): void {
  ctx.clock.run(request.authenticated?.workspace.id ?? null, () => {
    try {
      checkRateAndScope(request, ctx);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}

function checkRateAndScope(request: FastifyRequest, ctx: SandboxContext): void {
  const principal = request.principal;
  const buckets = [{ key: `workspace:${principal.workspace.id}`, policy: WORKSPACE_LIMITS[principal.workspace.mode] }];
  if (principal.ratePolicy) buckets.push({ key: `key:${principal.keyId}`, policy: principal.ratePolicy });
  const workspaceId = principal.workspace.id;
  const suspendedUntil = ctx.suspension.suspendedUntil(workspaceId);
  if (suspendedUntil !== null) throw suspended(request, ctx, buckets[0]!.policy.perMinute, suspendedUntil, 'suspended earlier');
  // a created workspace chose at creation (`rateLimits`); the fixture workspaces follow the sandbox's option
  const enforce = principal.workspace.rateLimits ? principal.workspace.rateLimits === 'enforce' : ctx.options.enforceRateLimits;
  request.rate = ctx.rateLimiter.take(buckets, enforce);
  if (ctx.bus.hasListeners('rate-limit')) {
    ctx.bus.emit('rate-limit', {
      bucket: buckets[buckets.length - 1]!.key,
      limit: request.rate.limit,
      remaining: request.rate.remaining,
      reset: request.rate.reset,
    });
  }
  if (!request.rate.allowed) {
    const until = ctx.suspension.violation(workspaceId);
    if (until !== null) throw suspended(request, ctx, request.rate.limit, until, 'this 429 was one too many');
    throw rateRefusal(request, ctx, buckets);
  }
  const route = request.routeOptions; // a getter that builds an object: read once
  const scope = route.config?.scope;
  if (scope) ctx.auth.requireScope(principal, scope, request.method, route.url ?? request.url);
}

/** The 429 with its reason: which meter of which bucket, when it lets a request through, and a frozen clock (docs/api-notes.md "Reasons"). */
function rateRefusal(request: FastifyRequest, ctx: SandboxContext, buckets: { key: string }[]) {
  const principal = request.principal;
  const retryAfter = request.rate!.retryAfter;
  const block = ctx.rateLimiter.blocking(buckets);
  if (!block) return rateLimited(retryAfter); // cannot happen right after take refused; the generic reason then
  const { policy, meter } = block;
  const bucket = block.key.startsWith('key:')
    ? `organization key ${principal.keyPrefix}... (rpm ${policy.perMinute}, burst ${policy.burst}${policy.perSecond !== undefined ? `, rps ${policy.perSecond}` : ''})`
    : `workspace ${principal.workspace.id} (${principal.workspace.mode}: ${policy.perMinute}/min, burst ${policy.burst}/s)`;
  const size = meter === 'minute' ? policy.perMinute : meter === 'second' ? policy.perSecond! : policy.burst;
  const hint = frozenClockHint(ctx.clock, principal.workspace.id, block.waitMs);
  return rateLimitedBecause(
    retryAfter,
    { bucket, meter, size, at: new Date(block.atMs).toISOString(), waitMs: block.waitMs, slidingBurst: policy.burstWindowMs !== undefined },
    hint,
  );
}

/**
 * A suspended workspace (src/core/suspension.ts): 429 with retry_after at the
 * end of the suspension, and headers that tell the truth: nothing remains
 * until then.
 */
function suspended(request: FastifyRequest, ctx: SandboxContext, limit: number, until: number, why: string) {
  const now = ctx.clock.now();
  const reset = Math.ceil(until / 1000);
  request.rate = { allowed: false, limit, remaining: 0, reset, retryAfter: Math.max(1, Math.ceil((until - now) / 1000)) };
  const { maxViolations, windowMs } = ctx.suspension.settings;
  const workspaceId = request.principal.workspace.id;
  const rule = `${why}: more than ${maxViolations} 429s within ${windowMs / 1000} s`;
  return suspendedBecause(request.rate.retryAfter, workspaceId, new Date(until).toISOString(), rule, frozenClockHint(ctx.clock, workspaceId, until - now));
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
    // no answer, so no onResponse: the request log alone says why (status 0)
    request.reason = reasonText(faultReason(fault));
    emitRequest(ctx, request, reply, 0);
    return true;
  }
  if (fault.status === undefined) return false;
  request.reason = reasonText(faultReason(fault));
  reply.code(fault.status).header('x-sandbox-fault', fault.id).header('x-sandbox-reason', request.reason);
  for (const [name, value] of Object.entries(fault.headers ?? {})) reply.header(name, value);
  // pre-serialized: a fault's body is the user's, not the route's declared shape
  reply.type('application/json').send(JSON.stringify(fault.body === undefined ? { error: `Injected fault ${fault.id}` } : fault.body));
  return true;
}
