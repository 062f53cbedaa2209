import { z } from 'zod';
import { emitDomainEvent } from '../core/events.ts';
import { conflict } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import { errorResponses } from '../http/error-schemas.ts';
import type { ZodApp } from '../resources/types.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/catalogue.ts';
import { sampleEventData } from '../webhooks/sample-data.ts';
import { applyDataEdits } from './event-data-edits.ts';
import { requireWorkspace } from './workspace-keys.ts';

/**
 * POST /__sandbox/events emits any event of the catalogue as if the platform
 * had (docs/webhooks.md): with the given data, or realistic data made from the
 * workspace's records. The event goes on the bus like any other, so webhooks,
 * logs and the dashboard all see it.
 */
const EmitBodySchema = z.object({
  workspaceId: z.string().min(1),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  data: z.record(z.string(), z.unknown()).optional(),
  /** dotted paths whose values replace fields of the data (trigger --override) */
  override: z.record(z.string(), z.unknown()).optional(),
  /** dotted paths added to the data (trigger --add) */
  add: z.record(z.string(), z.unknown()).optional(),
});
const DomainEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  workspaceId: z.string(),
  createdAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export function registerEventControl(app: ZodApp, ctx: SandboxContext): void {
  app.get('/events/types', {
    schema: { response: { 200: z.object({ data: z.array(z.string()) }) } },
    config: { summary: 'The catalogue of webhook event types' },
  }, async () => ({ data: [...WEBHOOK_EVENT_TYPES] }));

  app.post('/events', {
    schema: {
      body: EmitBodySchema,
      response: { 201: z.object({ data: z.object({ event: DomainEventSchema, deliveryIds: z.array(z.string()) }) }), 400: errorResponses[400], 404: errorResponses[404], 409: errorResponses[404] },
    },
    config: { summary: 'Emit a catalogue event (data made from the workspace when absent)' },
  }, async (request, reply) => {
    const { workspaceId, type } = request.body;
    const workspace = requireWorkspace(ctx, workspaceId);
    const base = request.body.data ?? sampleEventData(ctx.store, workspace.id, type, ctx.clock.iso());
    if (!base) throw conflict('CONTROL_CONFLICT', `Workspace ${workspace.id} has no records to build ${type} from; pass data`);
    const data = applyDataEdits(base, { override: request.body.override, add: request.body.add }, type);
    const event = emitDomainEvent(ctx.bus, ctx.clock, workspace.id, type, data);
    const deliveryIds = await ctx.webhooks.whenEnqueued(event.id);
    return reply.code(201).send({ data: { event, deliveryIds } });
  });
}
