import Fastify, { type FastifyInstance } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { apiError } from '../core/errors.ts';
import { WORKSPACE_LIMITS } from '../core/rate-limit.ts';
import type { SandboxContext } from '../context.ts';
import { sendApiError } from './error-handler.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { registerCommitHooks } from './commit-hooks.ts';
import { registerRequestHooks, requestIdFor } from './request-hooks.ts';
import { registerWarningHooks } from './warnings.ts';
import { registerRepeatedQueryCheck } from './repeated-query.ts';
import { clientErrorHandler } from './client-error.ts';
import { unknownRoute } from './route-suggest.ts';
import { createSerializerCompiler } from './serializer.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** a route that hands its requests to another app (http/control-forward.ts): no catalog entry */
    forward?: boolean;
    /** not part of the API (the inspector's static files, control/inspector.ts): not in the catalog or OpenAPI */
    hidden?: boolean;
  }
}

/**
 * A Fastify app with everything every sandbox route shares: the compilers, the
 * JSON-only body parser, the root hooks (warnings, request id, rate headers,
 * request log), the documented 404 and router-error bodies, and the route
 * catalog. The API app (server.ts) and the control plane's app
 * (control/app.ts) are both built on it, so a request gets the same treatment
 * whichever of them answers it.
 */
export function createBaseApp(ctx: SandboxContext): FastifyInstance {
  const serializerCompiler = createSerializerCompiler(ctx.options.validateResponses);
  const app = Fastify({
    // Our zod compilers from the start: Fastify then never loads ajv and
    // fast-json-stringify (about a fifth of its start-up; docs/benchmarks.md).
    // (Fastify types these factories after ajv's; ours take the same route schema objects.)
    schemaController: { compilersFactory: { buildValidator: (() => validatorCompiler) as never, buildSerializer: (() => serializerCompiler) as never } },
    logger: false,
    bodyLimit: ctx.options.bodyLimit,
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    // app.close() comes after the stop has drained the requests in flight (http/drain.ts): what is
    // left then (a connection of a second address bound, a half-sent request) is closed outright
    return503OnClosing: true,
    forceCloseConnections: true,
    // what Node's HTTP parser refuses gets the documented body and headers too (client-error.ts)
    clientErrorHandler: clientErrorHandler(ctx),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // the router's own refusals (a path segment over 200 characters, bad percent-encoding) get the
    // documented error body and headers too, not Fastify's default shape (found by test/fuzz)
    frameworkErrors: (error, request, reply) => {
      // refused before auth, so the headers are those of an anonymous request (request-hooks.ts)
      const rate = ctx.rateLimiter.peek('anonymous', WORKSPACE_LIMITS.sandbox);
      reply.header('x-request-id', request.id).header('x-ratelimit-limit', String(rate.limit));
      reply.header('x-ratelimit-remaining', String(rate.remaining)).header('x-ratelimit-reset', String(rate.reset));
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      return sendApiError(
        reply,
        tooLong
          ? apiError(414, 'URI_TOO_LONG', 'URI too long: a path segment is over 200 characters')
          : apiError(400, 'MALFORMED_URL', 'Malformed URL: invalid percent-encoding in the path'),
      );
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Bodies are JSON only ("Common request rules"): text/plain must be a 415, not a string body.
  app.removeContentTypeParser('text/plain');
  registerJsonBodyParser(app);

  app.addHook('onRoute', (route) => {
    // forwarded routes, and the inspector's static files (not an API: src/control/inspector.ts)
    if (route.config?.forward || route.config?.hidden) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      ctx.routes.add({
        method,
        url: route.url,
        schema: route.schema as Record<string, unknown> | undefined,
        inferred: route.config?.inferred,
        documentedStatuses: route.config?.documentedStatuses,
        documentedScope: route.config?.documentedScope,
        scope: route.config?.scope,
        summary: route.config?.summary,
        operationId: route.config?.operationId,
      });
    }
  });

  // root hooks run before the /v1 scope's, so a strict refusal comes before an idempotency key is claimed
  registerRepeatedQueryCheck(app);
  registerWarningHooks(app, ctx);
  registerRequestHooks(app, ctx);
  registerCommitHooks(app, ctx); // after: its onSend closes the group once the idempotency outcome is in it
  app.setNotFoundHandler((request, reply) => sendApiError(reply, unknownRoute(ctx, request.method, request.url)));
  return app;
}
