import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { CreateOrgKeyBodySchema } from './requests.ts';
import { CreatedOrgKeySchema, OrgApiKeySchema, RevokedOrgKeySchema } from './schemas.ts';

/**
 * Organization (partner) keys from the control plane, for `sandbox org-keys`
 * (docs/cli.md); served by ./control.ts. `revokedBy` names the control plane.
 */
export const CONTROL_PLANE_ACTOR = 'sandbox-control-plane';

export const OrganizationViewSchema = z.object({ id: z.string(), workspaceId: z.string(), name: z.string(), slug: z.string() });
export const OrgKeyViewSchema = OrgApiKeySchema.extend({ organizationName: z.string() });
const WorkspaceQuery = z.object({ workspaceId: z.string().optional() });
const IdParams = z.object({ id: z.string() });

export const ORG_KEY_CONTROL_ROUTES = defineRoutes({
  organizations: {
    method: 'GET',
    path: '/organizations',
    query: WorkspaceQuery,
    data: z.array(OrganizationViewSchema),
    errors: [404],
    summary: 'List the partner organizations of every workspace, or of one',
  },
  orgKeys: {
    method: 'GET',
    path: '/org-keys',
    query: WorkspaceQuery,
    data: z.array(OrgKeyViewSchema),
    errors: [404],
    summary: 'List organization keys (prefix only, never the key), oldest first per organization',
  },
  createOrgKey: {
    method: 'POST',
    path: '/organizations/:id/api-keys',
    params: IdParams,
    body: CreateOrgKeyBodySchema,
    data: CreatedOrgKeySchema,
    statuses: [201],
    errors: [400, 404, 409],
    summary: 'Issue an organization key (the body of POST /v1/organizations/:id/api-keys); the key is shown once',
  },
  revokeOrgKey: {
    method: 'DELETE',
    path: '/org-keys/:id',
    params: IdParams,
    data: RevokedOrgKeySchema,
    errors: [400, 404, 409],
    summary: `Revoke an organization key (revokedBy: "${CONTROL_PLANE_ACTOR}")`,
  },
});
