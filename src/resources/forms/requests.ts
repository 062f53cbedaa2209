import { z } from 'zod';
import { warning, type SandboxWarning } from '../../core/warnings.ts';
import { FORM_FIELD_TYPES, FORM_STATUSES, FormFieldSchema, FormSettingsSchema, SLUG, uniqueFieldIds } from './schemas.ts';

/**
 * POST /v1/forms body (API description, "Forms"): name and fields required;
 * status draft|published, default draft; notification_emails are e-mail
 * addresses. Length limits are not shown and are the sandbox's choice.
 */
export const CreateFormBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    // "slug (string)": the lower-case hyphenated shape is the sandbox's guess, so another slug is stored with a warning
    slug: z.string().trim().min(1).max(100).optional(),
    title: z.string().max(200).optional(),
    description: z.string().max(5000).nullable().optional(),
    status: z.enum(FORM_STATUSES).default('draft'),
    fields: z.array(FormFieldSchema).max(200),
    settings: FormSettingsSchema.nullable().optional(),
    notification_emails: z.array(z.email('notification_emails must be e-mail addresses')).max(20).default([]),
  })
  .superRefine(uniqueFieldIds);
export type CreateFormBody = z.infer<typeof CreateFormBodySchema>;

/** Field types outside the known list are stored as sent, with a warning. */
export function createFormWarnings(body: CreateFormBody): SandboxWarning[] {
  const known: readonly string[] = FORM_FIELD_TYPES;
  const slug =
    body.slug !== undefined && !SLUG.test(body.slug)
      ? [
          warning(
            'INFERRED_LIMIT',
            `body.slug "${body.slug}" stored as sent: the sandbox infers lower-case letters, digits and single hyphens (refused under --strict)`,
          ),
        ]
      : [];
  return slug.concat(
    body.fields.flatMap((field, i) =>
      known.includes(field.type)
        ? []
        : [warning('UNKNOWN_FORM_FIELD_TYPE', `body.fields.${i}.type "${field.type}" stored as sent: the sandbox knows ${FORM_FIELD_TYPES.join(', ')}`)],
    ),
  );
}
