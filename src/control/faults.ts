import { notFound } from '../core/errors.ts';
import type { FaultRuleInput } from '../core/fault-rule.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { FAULT_ROUTES } from './contracts/faults.ts';
import { requireDeliveryEvent, requireHoldAhead, requireKeyRef, requireSubscription, requireV1Path } from './targets.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

/** Fault injection routes: POST/GET/DELETE /__sandbox/faults (docs/control-plane.md). */
export function registerFaultRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, FAULT_ROUTES, {
    addFault: async (request) => {
      const rule = request.body;
      requireTargets(ctx, rule);
      // a hold given as a duration starts now, on the clock of the rule's workspace (the global one without)
      const now = ctx.clock.isoIn(rule.workspaceId ?? null);
      if (rule.holdUntil !== undefined) requireHoldAhead(rule.holdUntil, now);
      return ctx.faults.add(rule, now);
    },
    faults: async () => ctx.faults.list(),
    clearFaults: async () => {
      const removed = ctx.faults.clear();
      // all that rules hold (spent ones' too) is sent now, before the answer, so the next read sees it sent
      const released = await ctx.webhooks.releaseHeld(null);
      return { removed: removed.length, released };
    },
    removeFault: async (request) => {
      const removed = ctx.faults.remove(request.params.id);
      if (!removed) throw notFound(`Fault ${request.params.id}`);
      await ctx.webhooks.releaseHeld(new Set([removed.id]));
      return removed;
    },
  });
}

/** A rule that names what does not exist would never fire: refused, with what to send instead. */
function requireTargets(ctx: SandboxContext, rule: FaultRuleInput): void {
  const { workspaceId, key, path, event, subscriptionId } = rule;
  if (workspaceId !== undefined) requireWorkspace(ctx, workspaceId);
  if (key !== undefined) requireKeyRef(ctx, key);
  if (path !== undefined) requireV1Path(ctx, path);
  if (event !== undefined) requireDeliveryEvent(event);
  if (subscriptionId !== undefined) requireSubscription(ctx, subscriptionId, workspaceId);
}
