import { z } from 'zod';
import { ScopeSchema } from '../../core/tenancy.ts';

/**
 * Partner organizations and their API keys (API description, "Organization API
 * key"). The organization record itself is "not shown" and inferred. Keys are
 * `org_<prefix>_<secret>`; only the SHA-256 `keyHash` is stored.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const OrganizationSchema = z
  .object({
    id: z.string().describe('shape org_<uuid>'),
    workspaceId: z.string(),
    name: z.string().min(1),
    slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Expected a lower-case, hyphenated slug'),
    contactEmail: z.email(),
    createdAt: z.iso.datetime(),
  })
  .meta(inferred);
export type Organization = z.infer<typeof OrganizationSchema>;

export const RateLimitPolicySchema = z
  .object({
    rps: z.number().int().min(1).describe('requests per second'),
    rpm: z.number().int().min(1).describe('requests per minute'),
    burst: z.number().int().min(1).describe('maximum burst size'),
  })
  .meta({ id: 'RateLimitPolicy' });
export type RateLimitPolicy = z.infer<typeof RateLimitPolicySchema>;

export const ORG_KEY_PREFIX_PATTERN = /^[A-Za-z0-9]{8}$/;

/** Stored organization key (never holds the key itself). */
export const OrgApiKeyRecordSchema = z.object({
  id: z.string().describe('shape orgkey_<uuid>'),
  organizationId: z.string(),
  issuedByWorkspaceId: z.string(),
  keyPrefix: z.string().regex(ORG_KEY_PREFIX_PATTERN, 'Expected the 8-character key prefix'),
  keyHash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .describe('SHA-256 of the full key, hex')
    .meta(inferred),
  scopes: z.array(ScopeSchema),
  productIds: z.array(z.string()).describe('empty = all products'),
  status: z.enum(['active', 'revoked']),
  expiresAt: z.iso.datetime().nullable(),
  lastUsedAt: z.iso.datetime().nullable(),
  rateLimitPolicy: RateLimitPolicySchema,
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
  revokedBy: z.string().nullable(),
});
export type OrgApiKeyRecord = z.infer<typeof OrgApiKeyRecordSchema>;

/** "productIds: array of product UUID": answered as bare UUIDs (stored prefixed, accepted either way). */
const ProductUuidsSchema = z.array(z.uuid()).describe('product UUIDs (bare); empty = all products');

/**
 * A key as listed (GET /v1/organizations/:id/api-keys): no hash, no key.
 * revokedAt and revokedBy are "present after revocation": absent on active
 * keys. lastUsedAt is "string, present in listings": a key never used reads its
 * createdAt (docs/api-notes.md, "Optional fields").
 */
export const OrgApiKeySchema = OrgApiKeyRecordSchema.omit({ keyHash: true, revokedAt: true, revokedBy: true })
  .extend({
    productIds: ProductUuidsSchema,
    lastUsedAt: z.iso
      .datetime()
      .describe('the last authenticated request with the key; a key never used reads its createdAt (the description types it string, present in listings)'),
    revokedAt: z.iso.datetime().optional().describe('present after revocation'),
    revokedBy: z.string().optional().describe('present after revocation'),
  })
  .meta({ id: 'OrgApiKey' });
export type OrgApiKey = z.infer<typeof OrgApiKeySchema>;

/** The creation response: the only time `key` is returned (API description, "Organization API keys"). */
export const CreatedOrgKeySchema = OrgApiKeyRecordSchema.pick({
  id: true,
  organizationId: true,
  issuedByWorkspaceId: true,
  keyPrefix: true,
  scopes: true,
  productIds: true,
  status: true,
  expiresAt: true,
  rateLimitPolicy: true,
  createdAt: true,
})
  .extend({
    productIds: ProductUuidsSchema,
    key: z
      .string()
      .regex(/^org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/)
      .describe('org_<prefix>_<secret>; shown once'),
  })
  .meta({ id: 'CreatedOrgKey' });
export type CreatedOrgKey = z.infer<typeof CreatedOrgKeySchema>;

/** The revocation response: `{id, organizationId, status, revokedAt, revokedBy}`. */
export const RevokedOrgKeySchema = z
  .object({
    id: z.string(),
    organizationId: z.string(),
    status: z.literal('revoked'),
    revokedAt: z.iso.datetime(),
    revokedBy: z.string().describe('id of the key that revoked it'),
  })
  .meta({ id: 'RevokedOrgKey' });
