import { notFound } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { FAULT_ROUTES } from './contracts/faults.ts';
import { requireKeyRef, requireV1Path } from './targets.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

/** Fault injection routes: POST/GET/DELETE /__sandbox/faults (docs/control-plane.md). */
export function registerFaultRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, FAULT_ROUTES, {
    addFault: async (request) => {
      // a rule that names what does not exist would never fire (targets.ts)
      const { workspaceId, key, path } = request.body;
      if (workspaceId !== undefined) requireWorkspace(ctx, workspaceId);
      if (key !== undefined) requireKeyRef(ctx, key);
      if (path !== undefined) requireV1Path(ctx, path);
      return ctx.faults.add(request.body, ctx.clock.iso());
    },
    faults: async () => ctx.faults.list(),
    clearFaults: async () => ({ removed: ctx.faults.clear() }),
    removeFault: async (request) => {
      const removed = ctx.faults.remove(request.params.id);
      if (!removed) throw notFound(`Fault ${request.params.id}`);
      return removed;
    },
  });
}
