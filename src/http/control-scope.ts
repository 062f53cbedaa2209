import type { FastifyInstance, FastifyRequest } from 'fastify';
import { crossOriginRefusal, formPostRefusal } from '../core/host-guard.ts';
import { changesNothing, readOnlyRefusal } from '../core/read-only.ts';
import { controlTokenRequired } from '../core/reasons.ts';
import { hashesEqual, hashSecret } from '../core/secrets.ts';
import type { SandboxContext } from '../context.ts';
import { sendApiError } from './error-handler.ts';
import { headerValue } from './headers.ts';
import { unknownRoute } from './route-suggest.ts';

/**
 * The /__sandbox scope's token check, registered on the scope itself
 * (docs/architecture.md, "Request classification"), so that every control
 * route and the control plane's 404 pass through it whatever the URL's
 * spelling (`/%5F%5Fsandbox/...` is routed here too). Call before any route.
 */
export function registerControlScope(control: FastifyInstance, ctx: SandboxContext): void {
  control.addHook('onRequest', (request, _reply, done) => {
    request.area = 'control';
    // no web page may drive the control plane (src/core/host-guard.ts), token or not
    const refusal =
      crossOriginRefusal({ origin: headerValue(request, 'origin'), host: request.headers.host, site: headerValue(request, 'sec-fetch-site') }) ??
      formPostRefusal(request.method, request.headers['content-type'], controlUrlOf(request));
    if (refusal) return done(refusal);
    if (!ctx.controlToken || isInspectorFile(request)) return done(readOnlyRefusalOf(ctx, request));
    const given = headerValue(request, 'x-sandbox-token') ?? /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!given || !hashesEqual(hashSecret(given), hashSecret(ctx.controlToken))) {
      return done(controlTokenRequired(Boolean(given)));
    }
    done(readOnlyRefusalOf(ctx, request));
  });
  // A control route that acts on a workspace (`/workspaces/:id/...`, or a `workspaceId` in the body
  // or query) runs on that workspace's clock, so the timestamps it writes are the workspace's.
  control.addHook('preHandler', (request, _reply, done) => {
    ctx.clock.run(workspaceOf(request), done);
  });
  control.setNotFoundHandler((request, reply) => sendApiError(reply, unknownRoute(ctx, request.method, request.url)));
}

/** A write to a sandbox that serves a bundle (src/core/read-only.ts): refused after the token check, so a caller without it learns nothing. */
function readOnlyRefusalOf(ctx: SandboxContext, request: FastifyRequest): Error | undefined {
  return ctx.readOnly.reason !== null && !changesNothing(request.method, request.url) ? readOnlyRefusal(ctx.readOnly.reason) : undefined;
}

/**
 * The inspector's page and its scripts hold no data: a browser loads them without a header, and
 * the page then sends the token from the URL's #fragment with every call (src/control/inspector.ts).
 */
function isInspectorFile(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && /^\/__sandbox\/ui(\/|$|\?)/.test(request.url);
}

/** The URL the request was sent to, for the curl example of a refusal. */
function controlUrlOf(request: FastifyRequest): string {
  return `http://${request.headers.host ?? '127.0.0.1:4010'}${request.url.split('?')[0]!.slice(0, 200)}`;
}

function workspaceOf(request: FastifyRequest): string | null {
  const params = request.params as Record<string, unknown> | undefined;
  if (request.routeOptions.url?.includes('/workspaces/:id') && typeof params?.id === 'string') return params.id;
  for (const source of [request.body, request.query]) {
    const id = (source as Record<string, unknown> | null | undefined)?.workspaceId;
    if (typeof id === 'string') return id;
  }
  return null;
}
