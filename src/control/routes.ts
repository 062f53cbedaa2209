import { z } from 'zod';
import { badRequest } from '../core/errors.ts';
import { ScopeSchema, WorkspaceModeSchema } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { assertKnownScopes, knownScopes } from './known-scopes.ts';
import { createWorkspaceKey, exportWorkspace, listWorkspaces, requireWorkspace, revokeWorkspaceKey, workspaceView } from './workspace-keys.ts';

/**
 * The control plane: sandbox-only powers under /__sandbox, for scripts, tests,
 * the CLI and the dashboard. Every body is wrapped in `data`. Documented in
 * docs/control-plane.md.
 */
const KeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().nullable(),
  keyPrefix: z.string(),
  scopes: z.array(z.string()).nullable(),
  status: z.enum(['active', 'revoked']),
});
export const WorkspaceViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  mode: WorkspaceModeSchema,
  /** true for workspaces made by POST /__sandbox/workspaces (deletable) */
  created: z.boolean(),
  templateId: z.string().nullable(),
  keys: z.array(KeyViewSchema),
});
const ClockStateSchema = z.object({ mode: z.enum(['real', 'manual']), now: z.string(), nowMs: z.number(), pendingTimers: z.number() });
const IdParams = z.object({ id: z.string() });

export function registerControlPlane(app: ZodApp, ctx: SandboxContext): void {
  const startedAt = Date.now();

  app.get('/health', {
    schema: { response: { 200: z.object({ data: z.object({ status: z.literal('ok'), uptimeMs: z.number(), now: z.string() }) }) } },
  }, async () => ({ data: { status: 'ok' as const, uptimeMs: Date.now() - startedAt, now: ctx.clock.iso() } }));

  app.get('/openapi.json', async (_request, reply) => reply.type('application/json').send(ctx.routes.document()));

  app.get('/workspaces', {
    schema: { response: { 200: z.object({ data: z.array(WorkspaceViewSchema) }) } },
  }, async () => ({ data: listWorkspaces(ctx).map((w) => workspaceView(ctx, w)) }));

  app.get('/workspaces/:id', {
    schema: { params: IdParams, response: { 200: z.object({ data: WorkspaceViewSchema }) } },
  }, async (request) => ({ data: workspaceView(ctx, requireWorkspace(ctx, request.params.id)) }));

  app.post('/workspaces/:id/keys', {
    schema: {
      params: IdParams,
      body: z.object({ name: z.string().min(1).max(100).optional(), scopes: z.array(ScopeSchema).nullable().optional() }).optional(),
      response: { 201: z.object({ data: z.looseObject({ id: z.string(), key: z.string() }) }) },
    },
  }, async (request, reply) => {
    assertKnownScopes(request.body?.scopes, knownScopes(ctx.routes));
    const created = await createWorkspaceKey(ctx, request.params.id, request.body ?? {});
    return reply.code(201).send({ data: created });
  });

  app.get('/scopes', {
    schema: { response: { 200: z.object({ data: z.object({ scopes: z.array(z.string()), resources: z.array(z.string()), actions: z.array(z.string()) }) }) } },
    config: { summary: 'The scopes /v1 routes require, and their resources and actions (keys may use * wildcards)' },
  }, async () => ({ data: knownScopes(ctx.routes) }));

  app.delete('/keys/:id', { schema: { params: IdParams } }, async (request) => ({ data: await revokeWorkspaceKey(ctx, request.params.id) }));

  app.get('/workspaces/:id/export', { schema: { params: IdParams } }, async (request) => ({ data: exportWorkspace(ctx, request.params.id) }));

  app.post('/reset', async () => {
    const started = performance.now();
    await ctx.reset();
    return { data: { reset: true, ms: Math.round((performance.now() - started) * 100) / 100, now: ctx.clock.iso() } };
  });

  app.get('/clock', { schema: { response: { 200: z.object({ data: ClockStateSchema }) } } }, async () => ({ data: ctx.clock.state() }));

  app.post('/clock/advance', {
    schema: { body: z.object({ ms: z.number().int().min(0).max(10 * 365 * 86_400_000) }), response: { 200: z.object({ data: ClockStateSchema }) } },
  }, async (request) => ({ data: await ctx.clock.advance(request.body.ms) }));

  // Moves the clock to an absolute time, running due timers; backwards only on a manual clock
  // (a real clock's timers are tied to wall time), where no timer runs again.
  app.post('/clock/set', {
    schema: { body: z.object({ at: z.iso.datetime({ offset: true }) }), response: { 200: z.object({ data: ClockStateSchema }) } },
  }, async (request) => {
    const at = Date.parse(request.body.at);
    if (at >= ctx.clock.now()) return { data: await ctx.clock.set(at) };
    if (ctx.clock.mode !== 'manual') throw badRequest('CONTROL_INVALID', `A real clock cannot go backwards: it is ${ctx.clock.iso()}; start with --clock manual to set it back, or reset`);
    return { data: ctx.clock.rewindTo(at) };
  });
}
