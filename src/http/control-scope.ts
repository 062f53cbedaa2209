import type { FastifyInstance, FastifyRequest } from 'fastify';
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
    if (!ctx.controlToken) return done();
    const given = headerValue(request, 'x-sandbox-token') ?? /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!given || !hashesEqual(hashSecret(given), hashSecret(ctx.controlToken))) {
      return done(controlTokenRequired(Boolean(given)));
    }
    done();
  });
  // A control route that acts on a workspace (`/workspaces/:id/...`, or a `workspaceId` in the body
  // or query) runs on that workspace's clock, so the timestamps it writes are the workspace's.
  control.addHook('preHandler', (request, _reply, done) => {
    ctx.clock.run(workspaceOf(request), done);
  });
  control.setNotFoundHandler((request, reply) => sendApiError(reply, unknownRoute(ctx, request.method, request.url)));
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
