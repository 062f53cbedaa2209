import { describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { lenientAndStrict } from './helpers.ts';

/** Forms keep open objects open. */
let t: TestSandbox;
let strict: TestSandbox;
lenientAndStrict((lenient, strictOne) => {
  t = lenient;
  strict = strictOne;
});

const create = (s: TestSandbox, body: unknown) => s.request('POST', '/v1/forms', { body });

describe('POST /v1/forms leniency', () => {
  it('stores and returns unknown settings keys', async () => {
    const settings = { success_message: 'Thanks', redirect_url: 'https://example.com/ok', theme: { colour: 'teal' }, captcha: true };
    const res = await create(t, { name: 'Settings', fields: [], settings });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().settings).toEqual(settings);
    expect(res.headers['x-sandbox-warning']).toBeUndefined();
  });

  it('keeps extra field attributes (placeholder, options, helpText) as sent', async () => {
    const field = { id: 'size', type: 'text', label: 'Size', required: true, placeholder: 'M', helpText: 'EU sizes', options: ['S', 'M'] };
    const res = await create(t, { name: 'Attributes', fields: [field] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fields).toEqual([field]);
  });

  it('stores a field type outside the known list, with an UNKNOWN_FORM_FIELD_TYPE warning', async () => {
    const res = await create(t, { name: 'Types', fields: [{ id: 'sig', type: 'signature', label: 'Sign', required: false }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fields[0].type).toBe('signature');
    expect(res.headers['x-sandbox-warning']).toMatch(/^UNKNOWN_FORM_FIELD_TYPE: body\.fields\.0\.type "signature" stored as sent/);
  });

  it('required defaults to false', async () => {
    const res = await create(t, { name: 'Optional', fields: [{ id: 'a', type: 'text', label: 'A' }] });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fields[0]).toEqual({ id: 'a', type: 'text', label: 'A', required: false });
  });

  it('strict mode refuses the unknown field type with 400 VALIDATION_400 and stores nothing', async () => {
    const before = strict.sandbox.store.list('forms', strict.liveWorkspaceId).length;
    const res = await create(strict, { name: 'Types', fields: [{ id: 'sig', type: 'signature', label: 'Sign', required: false }] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/^UNKNOWN_FORM_FIELD_TYPE/) }] });
    expect(strict.sandbox.store.list('forms', strict.liveWorkspaceId).length).toBe(before);
  });
});
