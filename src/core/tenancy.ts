import { z } from 'zod';
import { SCOPE_PATTERN } from './scopes.ts';
import { defineCollection } from '../storage/index.ts';

/**
 * Workspaces and workspace API keys (API description, "Authentication" 2-3, 7).
 * Both live in the global partition; key secrets are stored only as SHA-256
 * hashes (`keyHash`), never in clear.
 */
export const WorkspaceModeSchema = z.enum(['live', 'sandbox']);
export type WorkspaceMode = z.infer<typeof WorkspaceModeSchema>;

/**
 * A created workspace's rate limits (docs/control-plane.md, "Rate
 * limits per workspace"): `enforce` refuses with 429 as the API description
 * says; `report` counts the same way but never refuses, so a test worker on a
 * frozen manual clock is not stopped at its sixth request.
 */
export const RateLimitModeSchema = z.enum(['enforce', 'report']);
export type RateLimitMode = z.infer<typeof RateLimitModeSchema>;

export const ScopeSchema = z.string().regex(SCOPE_PATTERN, 'Invalid scope: use <resource>:<action>, with * wildcards');

export const WorkspaceRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  mode: WorkspaceModeSchema,
  currency: z.string().length(3),
  /** VAT-style tax applied to quotes, in basis points (1000 = 10%) */
  taxRateBps: z.number().int().min(0).max(10000),
  timezone: z.string(),
  createdAt: z.string(),
  /** set on created workspaces; absent (fixture workspaces): the sandbox's enforceRateLimits decides */
  rateLimits: RateLimitModeSchema.optional(),
});
export type WorkspaceRecord = z.infer<typeof WorkspaceRecordSchema>;

export const ApiKeyRecordSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  /** first characters of the key, safe to show in listings and logs */
  keyPrefix: z.string(),
  keyHash: z.string(),
  /** null = full access (scopes are optional on workspace keys) */
  scopes: z.array(ScopeSchema).nullable(),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  /** true for the documented keys that come from fixtures */
  fixture: z.boolean(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecordSchema>;

/** What GET /__sandbox/workspaces and the start banner show for a key. */
export interface KeyView {
  id: string;
  name: string;
  key: string | null;
  keyPrefix: string;
  scopes: string[] | null;
  status: 'active' | 'revoked';
}

/** Workspaces and their keys live in the global partition (src/storage/types.ts GLOBAL_PARTITION). */
export const WORKSPACES = defineCollection({ name: 'workspaces', schema: WorkspaceRecordSchema, idPrefix: 'wksp', internal: true, reseeded: true });
export const API_KEYS = defineCollection({ name: 'apiKeys', schema: ApiKeyRecordSchema, idPrefix: 'wkey', internal: true });
