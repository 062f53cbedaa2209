import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { conflict } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { FieldIndex, type Store } from '../../storage/index.ts';
import type { CreateFormBody } from './requests.ts';
import type { Form } from './schemas.ts';
import { FORMS } from './collections.ts';

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return slug || 'form';
}

export class FormService {
  private readonly slugs: FieldIndex<Form>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.slugs = FieldIndex.on(store, FORMS, 'slug', (form) => form.slug);
  }

  /** Slugs are unique per workspace: a given slug that clashes is a 409; a generated one gets -2, -3, ... */
  async create(principal: Principal, body: CreateFormBody): Promise<Form> {
    const workspaceId = principal.workspace.id;
    const taken = { has: (candidate: string) => this.slugs.has(workspaceId, candidate) };
    let slug = body.slug;
    if (slug !== undefined && taken.has(slug)) throw conflict('DUPLICATE_FORM_SLUG', `A form with slug "${slug}" already exists`);
    if (slug === undefined) {
      const base = slugify(body.name);
      slug = base;
      for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    }
    const now = this.clock.iso();
    const form: Form = {
      id: newId(FORMS),
      name: body.name,
      slug,
      title: body.title ?? body.name,
      description: body.description ?? null,
      status: body.status,
      fields: body.fields,
      settings: body.settings ?? null,
      notification_emails: body.notification_emails,
      created_by: principal.keyId,
      created_at: now,
      updated_at: now,
    };
    await this.store.commit([FORMS.putOp(workspaceId, form)]);
    return form;
  }
}
