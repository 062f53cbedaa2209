import { z } from 'zod';

/**
 * Forms (API description, "Form"), snake_case as documented. Field types
 * beyond `text` and `email` are "not shown"; the rest of the enum is inferred.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const FORM_FIELD_TYPES = ['text', 'email', 'phone', 'date', 'select', 'checkbox', 'textarea', 'number'] as const;
export const FORM_STATUSES = ['draft', 'published'] as const;

export const FormFieldSchema = z
  .object({
    id: z.string().min(1),
    type: z.enum(FORM_FIELD_TYPES).meta(inferred),
    label: z.string().min(1),
    required: z.boolean(),
    options: z
      .array(z.object({ label: z.string().min(1), value: z.string().min(1) }))
      .min(1)
      .optional()
      .describe('select fields only')
      .meta(inferred),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'select' && f.options === undefined) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'a select field needs options' });
    }
    if (f.type !== 'select' && f.options !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'only select fields have options' });
    }
  });
export type FormField = z.infer<typeof FormFieldSchema>;

export const FormSettingsSchema = z.object({
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
    slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Expected a lower-case, hyphenated slug'),
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
