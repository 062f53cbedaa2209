import { badRequest, notFound } from '../core/errors.ts';
import { WORKSPACE_LIMITS } from '../core/rate-limit.ts';
import { API_KEYS, WORKSPACES, type WorkspaceRecord } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { GLOBAL_PARTITION } from '../storage/index.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { RATE_LIMIT_ROUTES } from './contracts/rate-limits.ts';
import { listWorkspaces, requireWorkspace } from '../core/workspace-lookup.ts';
import { workspaceView } from './workspace-keys.ts';
import { ORG_API_KEYS } from '../resources/organizations/collections.ts';

/**
 * Rate-limit controls: see every bucket, exhaust one so that the next request
 * gets a 429, and switch a workspace between live and sandbox limits.
 */
function bucketViews(ctx: SandboxContext) {
  const seen = new Map(ctx.rateLimiter.snapshot().map((b) => [b.key, b]));
  const views = [];
  for (const w of listWorkspaces(ctx)) {
    const key = `workspace:${w.id}`;
    const policy = WORKSPACE_LIMITS[w.mode];
    const b = seen.get(key);
    seen.delete(key);
    views.push(view(key, 'workspace', w.id, policy, b));
  }
  for (const [key, b] of seen) if (key.startsWith('key:')) views.push(view(key, 'key', key.slice(4), b.policy, b));
  return views;
}

function view(
  bucket: string,
  kind: 'workspace' | 'key',
  id: string,
  policy: { perMinute: number; burst: number; perSecond?: number },
  b?: { used: number; tokens: number; windowStart: number },
) {
  const windowStart = b?.windowStart ?? null;
  return {
    bucket,
    kind,
    id,
    limit: policy.perMinute,
    remaining: Math.max(0, policy.perMinute - (b?.used ?? 0)),
    reset: windowStart === null ? null : Math.ceil((windowStart + 60_000) / 1000),
    burst: policy.burst,
    burstTokens: Math.floor(b?.tokens ?? policy.burst),
    perSecond: policy.perSecond ?? null,
  };
}

export function registerRateLimitRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, RATE_LIMIT_ROUTES, {
    rateLimits: async (request) => {
      const { workspaceId } = request.query;
      if (workspaceId === undefined) return bucketViews(ctx);
      requireWorkspace(ctx, workspaceId);
      const orgKeys = new Set(
        ORG_API_KEYS.in(ctx.store)
          .list(workspaceId)
          .map((k) => k.id),
      );
      return bucketViews(ctx).filter((b) => (b.kind === 'workspace' ? b.id === workspaceId : orgKeys.has(b.id)));
    },

    // Emulated suspension after repeated 429s (src/core/suspension.ts), off by default.
    suspension: async () => ({ ...ctx.suspension.settings, suspended: ctx.suspension.suspended() }),
    configureSuspension: async (request) => {
      const change = Object.fromEntries(Object.entries(request.body).filter(([, v]) => v !== undefined));
      ctx.suspension.configure(change);
      return { ...ctx.suspension.settings, suspended: ctx.suspension.suspended() };
    },

    exhaustRateLimit: async (request) => {
      const { workspaceId, keyId, window } = request.body;
      if (!workspaceId === !keyId) throw badRequest('CONTROL_INVALID', 'Name exactly one of workspaceId or keyId');
      if (workspaceId) {
        const w = requireWorkspace(ctx, workspaceId);
        ctx.rateLimiter.exhaust(`workspace:${w.id}`, WORKSPACE_LIMITS[w.mode], window);
      } else {
        const bucket = ctx.rateLimiter.snapshot().find((b) => b.key === `key:${keyId}`);
        if (!bucket && !keyExists(ctx, keyId!)) throw notFound(`Key ${keyId}`);
        if (!bucket) throw badRequest('CONTROL_INVALID', `Key ${keyId} has no rate bucket of its own yet (organization keys get one on first use)`);
        ctx.rateLimiter.exhaust(bucket.key, bucket.policy, window);
      }
      return bucketViews(ctx);
    },

    setWorkspaceMode: async (request) => {
      const workspace = requireWorkspace(ctx, request.params.id);
      const updated: WorkspaceRecord = { ...workspace, mode: request.body.mode };
      await ctx.store.commit([WORKSPACES.putOp(GLOBAL_PARTITION, updated)]);
      return workspaceView(ctx, updated);
    },
  });
}

/** A workspace key or an organization key of any workspace. */
function keyExists(ctx: SandboxContext, keyId: string): boolean {
  if (API_KEYS.in(ctx.store).get(GLOBAL_PARTITION, keyId)) return true;
  return ORG_API_KEYS.in(ctx.store)
    .partitions()
    .some((ws) => ORG_API_KEYS.in(ctx.store).get(ws, keyId) !== undefined);
}
