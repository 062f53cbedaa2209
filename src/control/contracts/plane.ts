import { z } from 'zod';
import { RateLimitModeSchema, ScopeSchema, WorkspaceModeSchema } from '../../core/tenancy.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

/**
 * The control plane's own routes (docs/control-plane.md): the OpenAPI
 * document (health is in ./health.ts), where things are, workspaces and their keys, reset and the clock.
 */
const IdParams = z.object({ id: z.string() });
const KeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string().nullable(),
  keyPrefix: z.string(),
  scopes: z.array(z.string()).nullable(),
  status: z.enum(['active', 'revoked']),
});
export const WorkspaceViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    mode: WorkspaceModeSchema,
    rateLimits: RateLimitModeSchema.describe(
      "enforce: the tier's 429s; report: counted, never refused (the workspace's own setting, else the sandbox's enforceRateLimits)",
    ),
    /** true for workspaces made by POST /__sandbox/workspaces (deletable) */
    created: z.boolean(),
    templateId: z.string().nullable(),
    default: z
      .boolean()
      .describe(
        "true for the sandbox's default workspace, where the CLI, MCP, the inspector and the dashboard work when not told which (createSandbox's defaultWorkspace, else the first sandbox-mode fixture workspace)",
      ),
    keys: z.array(KeyViewSchema),
  })
  .meta({ id: 'WorkspaceView' });
/** A workspace key as created: the only answer that shows the key itself. */
export const CreatedWorkspaceKeySchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  key: z.string(),
  keyPrefix: z.string(),
  scopes: z.array(z.string()).nullable(),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export const ClockStateSchema = z
  .object({
    mode: z.enum(['real', 'manual']),
    now: z.string(),
    nowMs: z.number(),
    pendingTimers: z.number(),
    /** how far advance and set have moved the clock from where it started; 0 after a reset */
    advancedMs: z.number(),
  })
  .meta({ id: 'ClockState' });
const TimerRunSchema = z.object({ label: z.string(), workspaceId: z.string().nullable(), at: z.string() });
const ClockToNextSchema = ClockStateSchema.extend({
  workspaceId: z.string().nullable().describe('the workspace whose clock moved; null: the sandbox clock'),
  movedMs: z.number().int().describe("how far this call moved the clock (advancedMs is the sandbox clock's whole advance since its start)"),
  ran: z.array(TimerRunSchema).describe('every timer that ran during the move, in order (periodic sweeps included)'),
  next: z.object({ label: z.string(), at: z.string() }).nullable().describe('the timer due next after the move, or null'),
});
export const SandboxIndexSchema = z.object({
  name: z.string(),
  api: z.string(),
  controlPlane: z.string(),
  openapi: z.string(),
  health: z.string(),
  stream: z.string(),
});
const TEN_YEARS_MS = 10 * 365 * 86_400_000;

export const PLANE_ROUTES = defineRoutes({
  openapi: {
    method: 'GET',
    path: '/openapi.json',
    raw: 'json',
    data: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string() }), paths: z.record(z.string(), z.unknown()) }),
    summary: 'This document: the OpenAPI 3.0 description of /v1 and /__sandbox (not wrapped in data)',
  },
  index: { method: 'GET', path: '/', data: SandboxIndexSchema, summary: 'Where things are: the API, the control plane, OpenAPI, health' },
  workspaces: { method: 'GET', path: '/workspaces', data: z.array(WorkspaceViewSchema), summary: 'Every workspace with its keys' },
  workspace: { method: 'GET', path: '/workspaces/:id', params: IdParams, data: WorkspaceViewSchema, summary: 'One workspace with its keys' },
  createKey: {
    method: 'POST',
    path: '/workspaces/:id/keys',
    params: IdParams,
    body: z.object({ name: z.string().min(1).max(100).optional(), scopes: z.array(ScopeSchema).nullable().optional() }).optional(),
    data: CreatedWorkspaceKeySchema,
    statuses: [201],
    errors: [400],
    summary: 'Create a workspace key; the key is shown this once',
  },
  scopes: {
    method: 'GET',
    path: '/scopes',
    data: z.object({ scopes: z.array(z.string()), resources: z.array(z.string()), actions: z.array(z.string()) }),
    summary: 'The scopes /v1 routes require, and their resources and actions (keys may use * wildcards)',
  },
  revokeKey: {
    method: 'DELETE',
    path: '/keys/:id',
    params: IdParams,
    data: z.object({ id: z.string(), workspaceId: z.string(), status: z.literal('revoked'), revokedAt: z.string() }),
    summary: 'Revoke a workspace key: the next request with it gets 401',
  },
  exportWorkspace: {
    method: 'GET',
    path: '/workspaces/:id/export',
    params: IdParams,
    data: z.record(z.string(), z.array(z.looseObject({ id: z.string() }))),
    summary: 'Every record of a workspace, keyed by collection (hashes of secrets left out)',
  },
  reset: {
    method: 'POST',
    path: '/reset',
    data: z.object({ reset: z.literal(true), ms: z.number(), now: z.string() }),
    summary: 'Back to the fixtures, and the clock back to where it started',
  },
  clock: { method: 'GET', path: '/clock', data: ClockStateSchema, summary: 'The sandbox clock' },
  advanceClock: {
    method: 'POST',
    path: '/clock/advance',
    body: z.object({ ms: z.number().int().min(0).max(TEN_YEARS_MS) }),
    data: ClockStateSchema,
    summary: 'Move the clock forward, running every timer that falls due in order',
  },
  // `sandbox clock advance --to-next` (and `events wait`) move to what is due next, never past it
  advanceClockToNext: {
    method: 'POST',
    path: '/clock/advance-to-next',
    body: z
      .object({
        workspaceId: z
          .string()
          .min(1)
          .optional()
          .describe("this workspace's clock alone, to its own next timer; without it, the sandbox clock to the first timer of any workspace"),
      })
      .optional(),
    data: ClockToNextSchema,
    errors: [404],
    summary: 'Move the clock to its next due timer (a webhook retry, a deletion job), skipping periodic sweeps, and say what ran',
  },
  setClock: {
    method: 'POST',
    path: '/clock/set',
    body: z.object({ at: z.iso.datetime({ offset: true }) }),
    data: ClockStateSchema,
    summary: 'Jump to a time, running due timers (backwards only on a manual clock)',
  },
});
