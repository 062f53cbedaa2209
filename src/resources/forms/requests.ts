import { z } from 'zod';
import { warning, type SandboxWarning } from '../../core/warnings.ts';
import { FORM_FIELD_TYPES, FORM_STATUSES, FormFieldSchema, FormSettingsSchema, uniqueFieldIds } from './schemas.ts';

/**
 * POST /v1/forms body (API description, "Forms"): name and fields required;
 * status draft|published, default draft; notification_emails are e-mail
 * addresses. Length limits are not shown and are the sandbox's choice.
 */
export const CreateFormBodySchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    slug: z.string().max(100).regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'slug must be lower-case letters, digits and single hyphens').optional(),
    title: z.string().max(200).optional(),
    description: z.string().max(5000).nullable().optional(),
    status: z.enum(FORM_STATUSES).default('draft'),
    fields: z.array(FormFieldSchema).max(200),
    settings: FormSettingsSchema.nullable().optional(),
    notification_emails: z.array(z.email('notification_emails must be e-mail addresses')).max(20).default([]),
  })
  .superRefine(uniqueFieldIds);
export type CreateFormBody = z.infer<typeof CreateFormBodySchema>;

/** Field types outside the known list are stored as sent, with a warning (issue 10). */
export function createFormWarnings(body: CreateFormBody): SandboxWarning[] {
  const known: readonly string[] = FORM_FIELD_TYPES;
  return body.fields.flatMap((field, i) =>
    known.includes(field.type)
      ? []
      : [warning('UNKNOWN_FORM_FIELD_TYPE', `body.fields.${i}.type "${field.type}" stored as sent: the sandbox knows ${FORM_FIELD_TYPES.join(', ')}`)],
  );
}
