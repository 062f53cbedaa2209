import { z } from 'zod';
import { RateLimitModeSchema, WorkspaceModeSchema } from '../../core/tenancy.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { RestoredSchema, SnapshotDeletedSchema, SnapshotListSchema, SnapshotName, SnapshotSchema } from './snapshots.ts';

/**
 * Workspaces on demand, one per parallel test worker
 * (docs/control-plane.md, "Workspaces on demand"): create from a fixture
 * workspace, delete, and everything per workspace: reset, snapshots, clock.
 */
const IdParams = z.object({ id: z.string() });
const SnapshotParams = z.object({ id: z.string(), name: SnapshotName });
const CreatedKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  key: z.string(),
  keyPrefix: z.string(),
  scopes: z.array(z.string()).nullable(),
  status: z.literal('active'),
});
export const CreatedWorkspaceSchema = z.object({
  id: z.string(),
  name: z.string(),
  mode: WorkspaceModeSchema,
  rateLimits: RateLimitModeSchema,
  templateId: z.string(),
  created: z.literal(true),
  keys: z.array(CreatedKeySchema),
});
export const WorkspaceClockSchema = z
  .object({
    mode: z.enum(['real', 'manual']),
    now: z.string(),
    nowMs: z.number(),
    pendingTimers: z.number(),
    /** the global clock's travel from its start plus this workspace's own advance */
    advancedMs: z.number(),
    workspaceId: z.string(),
    offsetMs: z.number(),
  })
  .meta({ id: 'WorkspaceClock' });
const TEN_YEARS_MS = 10 * 365 * 86_400_000;

export const WORKSPACE_ROUTES = defineRoutes({
  createWorkspace: {
    method: 'POST',
    path: '/workspaces',
    body: z
      .object({
        template: z.string().min(1).optional(),
        mode: WorkspaceModeSchema.optional(),
        name: z.string().min(1).max(100).optional(),
        // `report` for a test worker on a manual clock; `enforce` to test a 429 on purpose
        rateLimits: RateLimitModeSchema.optional().describe(
          "enforce: 429 as documented; report: counted, never refused (X-Sandbox-Rate-Limit says when it would have been). Default: the sandbox's enforceRateLimits",
        ),
      })
      .optional(),
    data: CreatedWorkspaceSchema,
    statuses: [201],
    // 409: the sandbox already has maxWorkspaces created workspaces (the message says how to delete or raise it)
    errors: [400, 409],
    summary:
      'Create an isolated workspace from a fixture workspace (one per parallel test worker); its keys are shown once; 409 past the cap of created workspaces (1,000 by default)',
  },
  deleteWorkspace: {
    method: 'DELETE',
    path: '/workspaces/:id',
    params: IdParams,
    data: z.object({ id: z.string(), deleted: z.literal(true) }),
    summary: 'Delete a created workspace and everything in it',
  },
  resetWorkspace: {
    method: 'POST',
    path: '/workspaces/:id/reset',
    params: IdParams,
    data: z.object({ id: z.string(), reset: z.literal(true), ms: z.number(), now: z.string() }),
    summary: 'Put one workspace back to its template',
  },
  saveWorkspaceSnapshot: {
    method: 'POST',
    path: '/workspaces/:id/snapshots',
    params: IdParams,
    body: z.object({ name: SnapshotName }),
    data: SnapshotSchema,
    statuses: [201],
    // 409: maxSnapshots of this workspace, or maxSnapshotBytes of all snapshots (the message says how to delete one or raise it)
    errors: [409],
    summary: 'Save one workspace under a name (in memory, for the process); 409 past the bounds on snapshots (100 per workspace, 128 MiB in all by default)',
  },
  workspaceSnapshots: {
    method: 'GET',
    path: '/workspaces/:id/snapshots',
    params: IdParams,
    data: SnapshotListSchema,
    summary: 'The saved snapshots of one workspace',
  },
  restoreWorkspaceSnapshot: {
    method: 'POST',
    path: '/workspaces/:id/snapshots/:name/restore',
    params: SnapshotParams,
    data: RestoredSchema,
    summary: 'Restore one workspace from its snapshot',
  },
  deleteWorkspaceSnapshot: {
    method: 'DELETE',
    path: '/workspaces/:id/snapshots/:name',
    params: SnapshotParams,
    data: SnapshotDeletedSchema,
    summary: 'Forget a snapshot of one workspace',
  },
  workspaceClock: {
    method: 'GET',
    path: '/workspaces/:id/clock',
    params: IdParams,
    data: WorkspaceClockSchema,
    summary: "One workspace's time: the global clock plus its own advance",
  },
  // The workspace's own time moves; the global clock and other workspaces do not.
  advanceWorkspaceClock: {
    method: 'POST',
    path: '/workspaces/:id/clock/advance',
    params: IdParams,
    body: z.object({ ms: z.number().int().min(0).max(TEN_YEARS_MS) }),
    data: WorkspaceClockSchema,
    summary: "Move one workspace's clock alone and run its due timers",
  },
});
