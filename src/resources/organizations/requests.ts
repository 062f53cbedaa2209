import { z } from 'zod';
import { ScopeSchema } from '../../core/tenancy.ts';
import { RateLimitPolicySchema } from './schemas.ts';

/**
 * POST /v1/organizations/:id/api-keys (API description, "Organization API
 * keys"): scopes default [], productIds default [] (empty = all products),
 * expiresAt null for none, rateLimitPolicy {rps, rpm, burst}. Upper bounds and
 * the default policy are the sandbox's choice (docs/areas.md).
 */
const inferred = { 'x-sandbox-inferred': true } as const;
const UUID_OR_PRODUCT_ID = /^(prod_)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const CreateOrgKeyBodySchema = z
  .object({
    scopes: z.array(ScopeSchema).max(50).default([]),
    productIds: z
      .array(z.string().regex(UUID_OR_PRODUCT_ID, 'expected a product UUID (or prod_<uuid>)'))
      .max(1000)
      .default([])
      .describe('product UUIDs; empty = all products'),
    expiresAt: z.iso.datetime({ offset: true }).nullable().default(null).describe('ISO 8601; null = no expiration'),
    rateLimitPolicy: RateLimitPolicySchema.extend({
      rps: z.number().int().min(1).max(10_000).describe('requests per second'),
      rpm: z.number().int().min(1).max(600_000).describe('requests per minute'),
      burst: z.number().int().min(1).max(10_000).describe('maximum burst size'),
    })
      .optional()
      .describe('default: the workspace tier (sandbox 5/100/5, live 30/3000/30)')
      .meta(inferred),
  })
  .meta({ id: 'CreateOrgKeyBody' });
export type CreateOrgKeyBody = z.infer<typeof CreateOrgKeyBodySchema>;

export const OrgParamsSchema = z.object({ id: z.string().describe('organization id, org_<uuid>') });
export const OrgKeyParamsSchema = z.object({
  id: z.string().describe('organization id, org_<uuid>'),
  keyId: z.string().describe('key id, orgkey_<uuid>'),
});
