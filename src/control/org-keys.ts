import { z } from 'zod';
import type { Principal } from '../core/auth.ts';
import { notFound } from '../core/errors.ts';
import { parseId } from '../core/ids.ts';
import type { WorkspaceRecord } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import { ErrorBodySchema, errorResponses } from '../http/error-schemas.ts';
import { CreateOrgKeyBodySchema } from '../resources/organizations/requests.ts';
import { CreatedOrgKeySchema, OrgApiKeySchema, RevokedOrgKeySchema } from '../resources/organizations/schemas.ts';
import { OrgKeyService } from '../resources/organizations/service.ts';
import type { ZodApp } from '../resources/types.ts';
import type { Collection, StoredRow } from '../storage/collection.ts';
import { assertKnownScopes, knownScopes } from './known-scopes.ts';
import { listWorkspaces, requireWorkspace } from './workspace-keys.ts';
import { ORGANIZATIONS, ORG_API_KEYS } from '../resources/organizations/collections.ts';

/**
 * Organization (partner) keys from the control plane, for `sandbox org-keys`:
 * the same OrgKeyService as POST/GET/DELETE /v1/organizations/:id/api-keys
 * (API description, "Organization API keys"), acting as the control plane
 * itself: all scopes, and `revokedBy` names it (CONTROL_PLANE_ACTOR).
 * Documented in docs/cli.md.
 */
export const CONTROL_PLANE_ACTOR = 'sandbox-control-plane';

const OrganizationViewSchema = z.object({ id: z.string(), workspaceId: z.string(), name: z.string(), slug: z.string() });
const OrgKeyViewSchema = OrgApiKeySchema.extend({ organizationName: z.string() });
const WorkspaceQuery = z.object({ workspaceId: z.string().optional() });
const errors = { 400: errorResponses[400], 404: ErrorBodySchema, 409: ErrorBodySchema };

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

  app.get('/organizations', {
    schema: { querystring: WorkspaceQuery, response: { 200: z.object({ data: z.array(OrganizationViewSchema) }), 404: ErrorBodySchema } },
    config: { summary: 'List the partner organizations of every workspace, or of one' },
  }, async (request) => ({
    data: workspacesFor(ctx, request.query.workspaceId).flatMap((w) =>
      ORGANIZATIONS.in(ctx.store).list(w.id).map((o) => ({ id: o.id, workspaceId: w.id, name: o.name, slug: o.slug }))),
  }));

  app.get('/org-keys', {
    schema: { querystring: WorkspaceQuery, response: { 200: z.object({ data: z.array(OrgKeyViewSchema) }), 404: ErrorBodySchema } },
    config: { summary: 'List organization keys (prefix only, never the key), oldest first per organization' },
  }, async (request) => ({
    data: workspacesFor(ctx, request.query.workspaceId).flatMap((w) =>
      ORGANIZATIONS.in(ctx.store).list(w.id).flatMap((o) =>
        service.list(controlPrincipal(w), o.id).map((k) => ({ ...k, organizationName: o.name })))),
  }));

  app.post('/organizations/:id/api-keys', {
    schema: {
      params: z.object({ id: z.string() }),
      body: CreateOrgKeyBodySchema,
      response: { 201: z.object({ data: CreatedOrgKeySchema }), ...errors },
    },
    config: { summary: 'Issue an organization key (the body of POST /v1/organizations/:id/api-keys); the key is shown once' },
  }, async (request, reply) => {
    const id = parseId(ORGANIZATIONS, 'id', request.params.id);
    const found = locate(ctx, ORGANIZATIONS, id);
    if (!found) throw notFound('Organization');
    assertKnownScopes(request.body.scopes, knownScopes(ctx.routes));
    return reply.code(201).send({ data: await service.create(controlPrincipal(found.workspace), id, request.body) });
  });

  app.delete('/org-keys/:id', {
    schema: { params: z.object({ id: z.string() }), response: { 200: z.object({ data: RevokedOrgKeySchema }), ...errors } },
    config: { summary: `Revoke an organization key (revokedBy: "${CONTROL_PLANE_ACTOR}")` },
  }, async (request) => {
    const id = parseId(ORG_API_KEYS, 'id', request.params.id);
    const found = locate(ctx, ORG_API_KEYS, id);
    if (!found) throw notFound('Organization API key');
    return { data: await service.revoke(controlPrincipal(found.workspace), found.row.organizationId, id) };
  });
}
