import type { Principal } from '../../core/auth.ts';
import { notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import type { WorkspaceRecord } from '../../core/tenancy.ts';
import type { SandboxContext } from '../../context.ts';
import { CONTROL_PLANE_ACTOR, ORG_KEY_CONTROL_ROUTES } from './control-contract.ts';
import { OrgKeyService } from './service.ts';
import type { ZodApp } from '../types.ts';
import { serveAll } from '../../http/route-table/serve.ts';
import { assertKnownScopes, knownScopes } from '../../core/known-scopes.ts';
import { listWorkspaces, requireWorkspace } from '../../core/workspace-lookup.ts';
import type { Collection, StoredRow } from '../../storage/index.ts';
import { ORGANIZATIONS, ORG_API_KEYS } from './collections.ts';

/**
 * Organization (partner) keys from the control plane, for `sandbox org-keys`:
 * the same OrgKeyService as POST/GET/DELETE /v1/organizations/:id/api-keys
 * (API description, "Organization API keys"), acting as the control plane
 * itself: all scopes, and `revokedBy` names it (CONTROL_PLANE_ACTOR).
 * Documented in docs/cli.md; the routes' shapes are in ./control-contract.ts.
 */
export { CONTROL_PLANE_ACTOR };

function controlPrincipal(workspace: WorkspaceRecord): Principal {
  return {
    kind: 'internal',
    workspace,
    keyId: CONTROL_PLANE_ACTOR,
    keyPrefix: CONTROL_PLANE_ACTOR,
    scopes: null,
    productIds: [],
    organizationId: null,
    ratePolicy: null,
  };
}

/** The workspaces to look in: the one named (404 if unknown), or all. */
function workspacesFor(ctx: SandboxContext, workspaceId: string | undefined): WorkspaceRecord[] {
  return workspaceId === undefined ? listWorkspaces(ctx) : [requireWorkspace(ctx, workspaceId)];
}

/** Finds a row by id in whichever workspace holds it (ids are unique across workspaces). */
function locate<T extends StoredRow>(ctx: SandboxContext, collection: Collection<T>, id: string): { row: T; workspace: WorkspaceRecord } | undefined {
  const rows = collection.in(ctx.store);
  for (const ws of rows.partitions()) {
    const row = rows.get(ws, id);
    const workspace = row ? ctx.auth.workspace(ws) : undefined;
    if (row && workspace) return { row, workspace };
  }
  return undefined;
}

export function registerOrgKeyControl(app: ZodApp, ctx: SandboxContext): void {
  const service = new OrgKeyService(ctx.store, ctx.clock, ctx.auth);

  serveAll(app, ORG_KEY_CONTROL_ROUTES, {
    organizations: async (request) =>
      workspacesFor(ctx, request.query.workspaceId).flatMap((w) =>
        ORGANIZATIONS.in(ctx.store)
          .list(w.id)
          .map((o) => ({ id: o.id, workspaceId: w.id, name: o.name, slug: o.slug })),
      ),

    orgKeys: async (request) =>
      workspacesFor(ctx, request.query.workspaceId).flatMap((w) =>
        ORGANIZATIONS.in(ctx.store)
          .list(w.id)
          .flatMap((o) => service.list(controlPrincipal(w), o.id).map((k) => ({ ...k, organizationName: o.name }))),
      ),

    createOrgKey: async (request) => {
      const id = parseId(ORGANIZATIONS, 'id', request.params.id);
      const found = locate(ctx, ORGANIZATIONS, id);
      if (!found) throw notFound('Organization');
      assertKnownScopes(request.body.scopes, knownScopes(ctx.routes));
      return service.create(controlPrincipal(found.workspace), id, request.body);
    },

    revokeOrgKey: async (request) => {
      const id = parseId(ORG_API_KEYS, 'id', request.params.id);
      const found = locate(ctx, ORG_API_KEYS, id);
      if (!found) throw notFound('Organization API key');
      return service.revoke(controlPrincipal(found.workspace), found.row.organizationId, id);
    },
  });
}
