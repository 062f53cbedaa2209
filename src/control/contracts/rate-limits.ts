import { z } from 'zod';
import { WorkspaceModeSchema } from '../../core/tenancy.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { WorkspaceViewSchema } from './plane.ts';

/** Rate-limit buckets, exhausting one, a workspace's mode, and emulated suspension (docs/control-plane.md). */
export const RateBucketSchema = z
  .object({
    bucket: z.string(),
    kind: z.enum(['workspace', 'key']),
    id: z.string(),
    limit: z.number().int(),
    remaining: z.number().int(),
    /** epoch seconds when the minute window resets; null before first use */
    reset: z.number().int().nullable(),
    burst: z.number().int(),
    burstTokens: z.number().int(),
    perSecond: z.number().nullable(),
  })
  .meta({ id: 'RateBucket' });
/** both routes answer the buckets: one schema object, one answer in the OpenAPI document */
const RateBucketListSchema = z.array(RateBucketSchema);
export const SuspensionStateSchema = z
  .object({
    enabled: z.boolean(),
    maxViolations: z.number().int(),
    windowMs: z.number().int(),
    durationMs: z.number().int(),
    suspended: z.array(z.object({ workspaceId: z.string(), until: z.string() })),
  })
  .meta({ id: 'SuspensionState' });
const SuspensionBody = z.object({
  enabled: z.boolean().optional(),
  maxViolations: z.number().int().min(1).max(100_000).optional(),
  windowMs: z.number().int().min(1000).max(86_400_000).optional(),
  durationMs: z
    .number()
    .int()
    .min(1000)
    .max(7 * 86_400_000)
    .optional(),
});

export const RATE_LIMIT_ROUTES = defineRoutes({
  rateLimits: {
    method: 'GET',
    path: '/rate-limits',
    // ?workspaceId= keeps one workspace's bucket and its organization keys' buckets
    query: z.object({ workspaceId: z.string().optional() }),
    data: RateBucketListSchema,
    errors: [404],
    summary: "Every rate-limit bucket, or one workspace's (?workspaceId=)",
  },
  exhaustRateLimit: {
    method: 'POST',
    path: '/rate-limits/exhaust',
    body: z.object({
      workspaceId: z.string().optional(),
      keyId: z.string().optional(),
      window: z.enum(['burst', 'minute']).optional().describe('empty only this window (RATE_LIMIT_BURST or RATE_LIMIT_MINUTE next); default: both'),
    }),
    data: RateBucketListSchema,
    errors: [400, 404],
    summary: 'Empty a bucket (of a workspace or a key): the next request gets 429',
  },
  setWorkspaceMode: {
    method: 'POST',
    path: '/workspaces/:id/mode',
    params: z.object({ id: z.string() }),
    body: z.object({ mode: WorkspaceModeSchema }),
    data: WorkspaceViewSchema,
    summary: "Switch a workspace's limits between live and sandbox",
  },
  suspension: {
    method: 'GET',
    path: '/suspension',
    data: SuspensionStateSchema,
    summary: 'Emulated suspension after repeated 429s: settings and suspended workspaces',
    inferred: true,
  },
  configureSuspension: {
    method: 'PUT',
    path: '/suspension',
    body: SuspensionBody,
    data: SuspensionStateSchema,
    summary: 'Turn emulated suspension on or off and set its numbers',
    inferred: true,
  },
});
