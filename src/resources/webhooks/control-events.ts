import { emitDomainEvent } from '../../core/events.ts';
import { conflict } from '../../core/errors.ts';
import type { SandboxContext } from '../../context.ts';
import type { ZodApp } from '../types.ts';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/catalogue.ts';
import { applyDataEdits } from './event-data-edits.ts';
import { serve } from '../../http/route-table/serve.ts';
import { requireWorkspace } from '../../core/workspace-lookup.ts';
import { WEBHOOK_CONTROL_ROUTES } from './control-contract.ts';

/**
 * POST /__sandbox/events emits any event of the catalogue as if the platform
 * had (docs/webhooks.md): with the given data, or realistic data made from the
 * workspace's records. The event goes on the bus like any other, so webhooks,
 * logs and the dashboard all see it.
 */
export function registerEventControl(app: ZodApp, ctx: SandboxContext): void {
  serve(app, WEBHOOK_CONTROL_ROUTES.eventTypes, async () => [...WEBHOOK_EVENT_TYPES]);

  serve(app, WEBHOOK_CONTROL_ROUTES.emitEvent, async (request) => {
    const { workspaceId, type } = request.body;
    const workspace = requireWorkspace(ctx, workspaceId);
    const base = request.body.data ?? ctx.webhooks.sampleData(workspace.id, type, ctx.clock.iso());
    if (!base) throw conflict('CONTROL_CONFLICT', `Workspace ${workspace.id} has no records to build ${type} from; pass data`);
    const data = applyDataEdits(base, { override: request.body.override, add: request.body.add }, type);
    const event = emitDomainEvent(ctx.bus, ctx.clock, workspace.id, type, data);
    const deliveryIds = await ctx.webhooks.whenEnqueued(event.id);
    return { event, deliveryIds };
  });
}
