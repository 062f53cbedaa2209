import { z } from 'zod';

/** The slug shape the sandbox generates and infers (another is stored with a warning: requests.ts). */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Forms (API description, "Form"), snake_case as documented. Field types
 * beyond `text` and `email` are "not shown"; the rest of the enum is inferred.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const FORM_FIELD_TYPES = ['text', 'email', 'phone', 'date', 'select', 'checkbox', 'textarea', 'number'] as const;
export const FORM_STATUSES = ['draft', 'published'] as const;

/**
 * A form field. The description lists `id`, `type`, `label`, `required`; the
 * object stays open (the description does not close it): extra attributes such as `placeholder`,
 * `options` or `helpText` are stored and returned as sent, a type outside
 * FORM_FIELD_TYPES is stored with a warning (UNKNOWN_FORM_FIELD_TYPE), and
 * `required` defaults to false.
 */
export const FormFieldSchema = z
  .looseObject({
    id: z.string().min(1),
    type: z
      .string()
      .trim()
      .min(1)
      .max(40)
      .describe(`known types: ${FORM_FIELD_TYPES.join(', ')}; others are stored with a warning`),
    label: z.string().min(1),
    required: z.boolean().default(false).describe('default false'),
    options: z.array(z.unknown()).optional().describe('choices of a select field, for example [{label, value}]; stored as sent').meta(inferred),
  })
  .meta({ id: 'FormField' });
export type FormField = z.infer<typeof FormFieldSchema>;

/** "for example success message and redirect URL": an open object; other keys are stored and returned. */
export const FormSettingsSchema = z.looseObject({
  success_message: z.string().optional(),
  redirect_url: z.url().optional(),
});

/** Field ids are unique within a form; shared by the record and the create body. */
export function uniqueFieldIds(form: { fields: readonly { id: string }[] }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  form.fields.forEach((field, i) => {
    if (seen.has(field.id)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'id'], message: `duplicate field id "${field.id}"` });
    seen.add(field.id);
  });
}

export const FormSchema = z
  .object({
    id: z.string().describe('shape form_<uuid>'),
    name: z.string().min(1),
    slug: z.string().min(1).describe('unique in the workspace; generated lower-case and hyphenated, or as the client sent it'),
    title: z.string(),
    description: z.string().nullable(),
    status: z.enum(FORM_STATUSES),
    fields: z.array(FormFieldSchema),
    settings: FormSettingsSchema.nullable(),
    notification_emails: z.array(z.email()),
    created_by: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .superRefine(uniqueFieldIds);
export type Form = z.infer<typeof FormSchema>;
