import { badRequest } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { PLANE_ROUTES } from './contracts/plane.ts';
import { assertKnownScopes, knownScopes } from '../core/known-scopes.ts';
import { defaultWorkspaceOf, listWorkspaces, requireWorkspace } from '../core/workspace-lookup.ts';
import { createWorkspaceKey, exportWorkspace, revokeWorkspaceKey, workspaceView } from './workspace-keys.ts';
import { sandboxIndex } from './where.ts';
import { advanceToNext } from './clock-next.ts';

/**
 * The control plane: sandbox-only powers under /__sandbox, for scripts, tests,
 * the CLI and the dashboard. Every body is wrapped in `data`. Documented in
 * docs/control-plane.md; the routes' shapes are in ./contracts/plane.ts.
 */
export function registerControlPlane(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, PLANE_ROUTES, {
    openapi: async () => ctx.routes.document(),

    index: async (request) => sandboxIndex(request),

    workspaces: async () => {
      const defaultId = defaultWorkspaceOf(ctx)?.id;
      return listWorkspaces(ctx).map((w) => workspaceView(ctx, w, defaultId));
    },

    workspace: async (request) => workspaceView(ctx, requireWorkspace(ctx, request.params.id)),

    createKey: async (request) => {
      assertKnownScopes(request.body?.scopes, knownScopes(ctx.routes));
      return createWorkspaceKey(ctx, request.params.id, request.body ?? {});
    },

    scopes: async () => knownScopes(ctx.routes),

    revokeKey: async (request) => revokeWorkspaceKey(ctx, request.params.id),

    exportWorkspace: async (request) => exportWorkspace(ctx, request.params.id),

    reset: async () => {
      const started = performance.now();
      await ctx.reset();
      return { reset: true as const, ms: Math.round((performance.now() - started) * 100) / 100, now: ctx.clock.iso() };
    },

    clock: async () => ctx.clock.state(),

    advanceClock: async (request) => ctx.clock.advance(request.body.ms),

    advanceClockToNext: async (request) => advanceToNext(ctx, request.body?.workspaceId),

    // Moves the clock to an absolute time, running due timers; backwards only on a manual clock
    // (a real clock's timers are tied to wall time), where no timer runs again.
    setClock: async (request) => {
      const at = Date.parse(request.body.at);
      if (at >= ctx.clock.now()) return ctx.clock.set(at);
      if (ctx.clock.mode !== 'manual')
        throw badRequest('CONTROL_INVALID', `A real clock cannot go backwards: it is ${ctx.clock.iso()}; start with --clock manual to set it back, or reset`);
      return ctx.clock.rewindTo(at);
    },
  });
}
