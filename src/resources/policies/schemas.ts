import { z } from 'zod';

/**
 * Policies (API description, "Policy"), snake_case as documented. Only `terms`,
 * `generic` and `active` were seen; the other kinds, scopes and statuses and
 * the per-locale `translations` (used for GET ?locale=) are inferred.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const POLICY_KINDS = ['terms', 'privacy', 'cancellation', 'payment', 'health_safety'] as const;
export const POLICY_SCOPES = ['generic', 'product'] as const;
export const POLICY_STATUSES = ['active', 'draft', 'archived'] as const;

export const PolicyTranslationSchema = z.object({
  title: z.string().min(1),
  description_html: z.string(),
});

export const PolicySchema = z.object({
  id: z.string().describe('shape pol_<uuid>'),
  workspace_id: z.string(),
  kind: z.enum(POLICY_KINDS).meta(inferred),
  scope: z.enum(POLICY_SCOPES).meta(inferred),
  status: z.enum(POLICY_STATUSES).meta(inferred),
  title: z.string().min(1),
  slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Expected a lower-case, hyphenated slug'),
  description_html: z.string(),
  billing_cancellation_policy_id: z.string().nullable(),
  product_id: z.string().nullable(),
  locale: z.string().min(2),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  translations: z.record(z.string().min(2), PolicyTranslationSchema).describe('other locales of title and description_html, keyed by locale').meta(inferred),
});
export type Policy = z.infer<typeof PolicySchema>;
