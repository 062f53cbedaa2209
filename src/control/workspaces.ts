import { z } from 'zod';
import { WorkspaceModeSchema } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { requireWorkspace } from './workspace-keys.ts';

/**
 * Workspaces on demand, one per parallel test worker (issue 12;
 * docs/control-plane.md, "Workspaces on demand"): create from a fixture
 * workspace, delete, and everything per workspace: reset, snapshots, clock.
 */
const IdParams = z.object({ id: z.string() });
const SnapshotName = z.string().regex(/^[\w.-]{1,64}$/, 'names are 1-64 letters, digits, _ . -');
const SnapshotParams = z.object({ id: z.string(), name: SnapshotName });
const CreatedKeySchema = z.object({ id: z.string(), name: z.string(), key: z.string(), keyPrefix: z.string(), scopes: z.array(z.string()).nullable(), status: z.literal('active') });
const CreatedWorkspaceSchema = z.object({ id: z.string(), name: z.string(), mode: WorkspaceModeSchema, templateId: z.string(), created: z.literal(true), keys: z.array(CreatedKeySchema) });
export const WorkspaceClockSchema = z.object({
  mode: z.enum(['real', 'manual']),
  now: z.string(),
  nowMs: z.number(),
  pendingTimers: z.number(),
  workspaceId: z.string(),
  offsetMs: z.number(),
});
const SnapshotSchema = z.object({ name: z.string(), createdAt: z.string(), bytes: z.number() });
const TEN_YEARS_MS = 10 * 365 * 86_400_000;

export function registerWorkspaceRoutes(app: ZodApp, ctx: SandboxContext): void {
  app.post('/workspaces', {
    config: { summary: 'Create an isolated workspace from a fixture workspace (one per parallel test worker); its keys are shown once' },
    schema: {
      body: z.object({ template: z.string().min(1).optional(), mode: WorkspaceModeSchema.optional(), name: z.string().min(1).max(100).optional() }).optional(),
      response: { 201: z.object({ data: CreatedWorkspaceSchema }) },
    },
  }, async (request, reply) => reply.code(201).send({ data: await ctx.workspaces.create(request.body ?? {}) }));

  app.delete('/workspaces/:id', { config: { summary: 'Delete a created workspace and everything in it' }, schema: { params: IdParams } }, async (request) => ({ data: await ctx.workspaces.delete(request.params.id) }));

  app.post('/workspaces/:id/reset', { config: { summary: 'Put one workspace back to its template' }, schema: { params: IdParams } }, async (request) => {
    const started = performance.now();
    await ctx.workspaces.reset(request.params.id);
    return { data: { id: request.params.id, reset: true, ms: Math.round((performance.now() - started) * 100) / 100, now: ctx.clock.isoIn(request.params.id) } };
  });

  app.post('/workspaces/:id/snapshots', {
    config: { summary: 'Save one workspace under a name (in memory, for the process)' },
    schema: { params: IdParams, body: z.object({ name: SnapshotName }), response: { 201: z.object({ data: SnapshotSchema }) } },
  }, async (request, reply) => reply.code(201).send({ data: ctx.workspaces.snapshot(request.params.id, request.body.name) }));

  app.get('/workspaces/:id/snapshots', { config: { summary: 'The saved snapshots of one workspace' }, schema: { params: IdParams } }, async (request) => ({ data: ctx.workspaces.listSnapshots(request.params.id) }));

  app.post('/workspaces/:id/snapshots/:name/restore', { config: { summary: 'Restore one workspace from its snapshot' }, schema: { params: SnapshotParams } }, async (request) => {
    const started = performance.now();
    await ctx.workspaces.restore(request.params.id, request.params.name);
    return { data: { name: request.params.name, restored: true, ms: Math.round((performance.now() - started) * 100) / 100 } };
  });

  app.delete('/workspaces/:id/snapshots/:name', { config: { summary: 'Forget a snapshot of one workspace' }, schema: { params: SnapshotParams } }, async (request) => {
    ctx.workspaces.deleteSnapshot(request.params.id, request.params.name);
    return { data: { name: request.params.name, deleted: true } };
  });

  app.get('/workspaces/:id/clock', { config: { summary: "One workspace's time: the global clock plus its own advance" }, schema: { params: IdParams, response: { 200: z.object({ data: WorkspaceClockSchema }) } } }, async (request) => {
    requireWorkspace(ctx, request.params.id);
    return { data: ctx.clock.stateOf(request.params.id) };
  });

  // The workspace's own time moves; the global clock and other workspaces do not.
  app.post('/workspaces/:id/clock/advance', {
    config: { summary: "Move one workspace's clock alone and run its due timers" },
    schema: { params: IdParams, body: z.object({ ms: z.number().int().min(0).max(TEN_YEARS_MS) }), response: { 200: z.object({ data: WorkspaceClockSchema }) } },
  }, async (request) => {
    requireWorkspace(ctx, request.params.id);
    return { data: await ctx.clock.advanceWorkspace(request.params.id, request.body.ms) };
  });
}
