import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const FORM_FIELDS = [
  'created_at',
  'created_by',
  'description',
  'fields',
  'id',
  'name',
  'notification_emails',
  'settings',
  'slug',
  'status',
  'title',
  'updated_at',
];
const field = (over: Record<string, unknown> = {}) => ({ id: 'name', type: 'text', label: 'Your name', required: true, ...over });
const create = (body: unknown, key?: string) => t.request('POST', '/v1/forms', { body, ...(key ? { key } : {}) });

describe('POST /v1/forms (Forms)', () => {
  it('answers 201 with the bare form record and the documented defaults', async () => {
    const res = await create({ name: 'Brochure request', fields: [field()] });
    expect(res.statusCode).toBe(201);
    const form = res.json();
    expect(Object.keys(form).sort()).toEqual(FORM_FIELDS);
    expect(form).toMatchObject({
      id: expect.stringMatching(/^form_[0-9a-f-]{36}$/),
      name: 'Brochure request',
      slug: 'brochure-request',
      title: 'Brochure request',
      description: null,
      status: 'draft',
      fields: [field()],
      settings: null,
      notification_emails: [],
      created_by: 'wkey_8270fdd7-398e-4caf-8604-bff1bad5ca14',
      created_at: t.sandbox.clock.iso(),
      updated_at: t.sandbox.clock.iso(),
    });
  });

  it('keeps everything given, with every field type', async () => {
    const fields = [
      field(),
      field({ id: 'email', type: 'email', label: 'E-mail' }),
      field({ id: 'phone', type: 'phone', label: 'Phone', required: false }),
      field({ id: 'date', type: 'date', label: 'Travel date' }),
      field({ id: 'room', type: 'select', label: 'Room', options: [{ label: 'Double', value: 'double' }] }),
      field({ id: 'consent', type: 'checkbox', label: 'I agree' }),
      field({ id: 'notes', type: 'textarea', label: 'Notes', required: false }),
      field({ id: 'pax', type: 'number', label: 'Travellers' }),
    ];
    const body = {
      name: 'Full',
      slug: 'full-form',
      title: 'Tell us about your trip',
      description: 'All types',
      status: 'published',
      fields,
      settings: { success_message: 'Thanks!', redirect_url: 'https://example.com/thanks' },
      notification_emails: ['sales@example.com'],
    };
    const res = await create(body);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject(body);
    const stored = t.sandbox.store.get('forms', t.liveWorkspaceId, res.json().id);
    expect(stored).toMatchObject(body);
  });

  it('generates unique slugs from the name; a given slug that clashes gets 409', async () => {
    expect((await create({ name: 'Trip enquiry', fields: [] })).json().slug).toBe('trip-enquiry-2'); // fixture holds trip-enquiry
    expect((await create({ name: 'Trip enquiry', fields: [] })).json().slug).toBe('trip-enquiry-3');
    expect((await create({ name: 'Ünïcode & Symbols!', fields: [] })).json().slug).toBe('unicode-symbols');
    const clash = await create({ name: 'Other', slug: 'trip-enquiry', fields: [] });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error).toMatch(/trip-enquiry/);
  });

  it('slugs are unique per workspace, not across workspaces', async () => {
    const res = await create({ name: 'X', slug: 'trip-enquiry-2', fields: [] }, KEYS.sandboxFull);
    expect(res.statusCode).toBe(201);
  });

  it.each([
    ['no name', { fields: [] }, 'body'],
    ['an empty name', { name: '  ', fields: [] }, 'body.name'],
    ['no fields', { name: 'x' }, 'body'],
    ['fields not an array', { name: 'x', fields: {} }, 'body.fields'],
    ['a field without id', { name: 'x', fields: [{ type: 'text', label: 'L', required: true }] }, 'body.fields.0.id'],
    ['a field without type', { name: 'x', fields: [{ id: 'a', label: 'L', required: true }] }, 'body.fields.0.type'],
    ['a field without label', { name: 'x', fields: [{ id: 'a', type: 'text', required: true }] }, 'body.fields.0.label'],
    ['an empty field type', { name: 'x', fields: [field({ type: ' ' })] }, 'body.fields.0.type'],
    ['required not a boolean', { name: 'x', fields: [field({ required: 'yes' })] }, 'body.fields.0.required'],
    ['duplicate field ids', { name: 'x', fields: [field(), field()] }, 'body.fields.1.id'],
    ['a bad notification e-mail', { name: 'x', fields: [], notification_emails: ['not-an-email'] }, 'body.notification_emails.0'],
    ['notification_emails not an array', { name: 'x', fields: [], notification_emails: 'a@b.co' }, 'body.notification_emails'],
    ['an unknown status', { name: 'x', fields: [], status: 'archived' }, 'body.status'],
    ['an empty slug', { name: 'x', fields: [], slug: '' }, 'body.slug'],
    ['a redirect_url that is not a URL', { name: 'x', fields: [], settings: { redirect_url: 'nope' } }, 'body.settings.redirect_url'],
  ])('%s -> 400 VALIDATION_400 naming %s', async (_name, body, where) => {
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    const json = res.json();
    expect(json).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_400' });
    expect(json.details.map((d: { message: string }) => d.message).join('\n')).toContain(where);
  });

  it('401 without a key; 403 without forms:write', async () => {
    expect((await t.request('POST', '/v1/forms', { key: null, body: { name: 'x', fields: [] } })).json()).toEqual({ error: 'Unauthorized' });
    expect((await create({ name: 'x', fields: [] }, KEYS.liveRead)).json()).toEqual({ error: 'Forbidden' });
  });
});
