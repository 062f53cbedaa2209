import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { WORKSPACE_ROUTES } from './contracts/workspaces.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

/**
 * Workspaces on demand, one per parallel test worker
 * (docs/control-plane.md, "Workspaces on demand"): create from a fixture
 * workspace, delete, and everything per workspace: reset, snapshots, clock.
 * The routes' shapes are in ./contracts/workspaces.ts.
 */
export function registerWorkspaceRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, WORKSPACE_ROUTES, {
    createWorkspace: async (request) => ctx.workspaces.create(request.body ?? {}),

    deleteWorkspace: async (request) => ctx.workspaces.delete(request.params.id),

    resetWorkspace: async (request) => {
      const started = performance.now();
      await ctx.workspaces.reset(request.params.id);
      return {
        id: request.params.id,
        reset: true as const,
        ms: Math.round((performance.now() - started) * 100) / 100,
        now: ctx.clock.isoIn(request.params.id),
      };
    },

    saveWorkspaceSnapshot: async (request) => ctx.workspaces.snapshot(request.params.id, request.body.name),

    workspaceSnapshots: async (request) => ctx.workspaces.listSnapshots(request.params.id),

    restoreWorkspaceSnapshot: async (request) => {
      const started = performance.now();
      await ctx.workspaces.restore(request.params.id, request.params.name);
      return { name: request.params.name, restored: true as const, ms: Math.round((performance.now() - started) * 100) / 100 };
    },

    deleteWorkspaceSnapshot: async (request) => {
      ctx.workspaces.deleteSnapshot(request.params.id, request.params.name);
      return { name: request.params.name, deleted: true as const };
    },

    workspaceClock: async (request) => {
      requireWorkspace(ctx, request.params.id);
      return ctx.clock.stateOf(request.params.id);
    },

    // The workspace's own time moves; the global clock and other workspaces do not.
    advanceWorkspaceClock: async (request) => {
      requireWorkspace(ctx, request.params.id);
      return ctx.clock.advanceWorkspace(request.params.id, request.body.ms);
    },
  });
}
