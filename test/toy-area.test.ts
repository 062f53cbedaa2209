import { afterEach, describe, expect, it } from 'vitest';
import { collectionsOf, RESOURCES } from '../src/resources/index.ts';
import { KEYS, testSandbox, type TestSandbox } from './helpers/sandbox.ts';
import { NOTES, noteServiceRuns, toyResource } from './toy-area/index.ts';

/**
 * Adding an area is one folder (test/toy-area/) plus one line in the list
 * (docs/architecture.md, "Adding an area"): everything the sandbox
 * keeps per collection and per area follows from the module's declaration.
 */
const WITH_TOY = [...RESOURCES, toyResource];

let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

const control = (method: string, path: string, body?: unknown) => t!.request(method, `/__sandbox${path}`, { key: null, body });
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('a toy area added with one line', () => {
  it('serves its routes under /v1 with ids of its own prefix, and they are in the OpenAPI document', async () => {
    t = await testSandbox({}, WITH_TOY);
    const created = await t.request('POST', '/v1/notes', { body: { text: 'hello' } });
    expect(created.statusCode).toBe(201);
    const note = created.json();
    expect(note.id).toMatch(new RegExp(`^note_${UUID}$`));
    expect((await t.request('GET', `/v1/notes/${note.id}`)).json()).toEqual(note);
    // a bare UUID is the same id (docs/api-notes.md, "Ids"); another area's prefix is a 400
    expect((await t.request('GET', `/v1/notes/${note.id.slice('note_'.length)}`)).json()).toEqual(note);
    const wrong = await t.request('GET', `/v1/notes/prod_${note.id.slice('note_'.length)}`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'INVALID_ID', error: 'Invalid id: expected an id of the form note_<uuid>' });
    // workspace isolation comes with the collection: the other workspace does not see it
    expect((await t.request('GET', `/v1/notes/${note.id}`, { key: KEYS.sandboxFull })).statusCode).toBe(404);

    const paths = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json().paths as Record<
      string,
      Record<string, { 'x-required-scope'?: string }>
    >;
    expect(paths['/v1/notes']?.post?.['x-required-scope']).toBe('notes:write');
    expect(paths['/v1/notes/{id}']?.get?.['x-required-scope']).toBe('notes:read');
  });

  it('is absent without the line', async () => {
    t = await testSandbox();
    expect((await t.request('POST', '/v1/notes', { body: { text: 'hello' } })).statusCode).toBe(404);
    expect(t.sandbox.context.collections.has(NOTES.name)).toBe(false);
  });

  it('has its control-plane part and its background service', async () => {
    const started = noteServiceRuns.started;
    const stopped = noteServiceRuns.stopped;
    t = await testSandbox({}, WITH_TOY);
    expect(noteServiceRuns.started).toBe(started + 1);
    await t.request('POST', '/v1/notes', { body: { text: 'one' } });
    await t.request('POST', '/v1/notes', { body: { text: 'two' }, key: KEYS.sandboxFull });
    expect((await control('GET', '/notes/count')).json().data).toEqual({ notes: 2 });
    await t.sandbox.stop();
    expect(noteServiceRuns.stopped).toBe(stopped + 1);
    t = undefined;
  });

  it('travels in a workspace export and a state export/import, and goes with a reset', async () => {
    t = await testSandbox({}, WITH_TOY);
    const note = (await t.request('POST', '/v1/notes', { body: { text: 'kept' } })).json();
    const exported = (await control('GET', `/workspaces/${t.liveWorkspaceId}/export`)).json().data;
    expect(exported.notes).toEqual([note]);

    const state = await t.request('GET', '/__sandbox/state', { key: null });
    expect(JSON.parse(state.body).collections.notes[t.liveWorkspaceId][note.id]).toEqual(note);
    expect((await control('POST', '/reset')).statusCode).toBe(200);
    expect((await t.request('GET', `/v1/notes/${note.id}`)).statusCode).toBe(404);
    const imported = await t.request('PUT', '/__sandbox/state', { key: null, payload: state.body, headers: { 'content-type': 'application/json' } });
    expect(imported.statusCode).toBe(200);
    expect((await t.request('GET', `/v1/notes/${note.id}`)).json()).toEqual(note);
  });

  it("is part of a created workspace: its rows are the workspace's own, dropped by its reset", async () => {
    t = await testSandbox({}, WITH_TOY);
    const worker = await t.sandbox.createWorkspace();
    const key = worker.keys[0]!.key;
    const note = (await t.request('POST', '/v1/notes', { body: { text: 'mine' }, key })).json();
    expect((await t.request('GET', `/v1/notes/${note.id}`, { key })).statusCode).toBe(200);
    await worker.snapshot('one');
    await worker.reset();
    expect((await t.request('GET', `/v1/notes/${note.id}`, { key })).statusCode).toBe(404);
    await worker.restore('one');
    expect((await t.request('GET', `/v1/notes/${note.id}`, { key })).json()).toEqual(note);
  });

  it('adds its row schema and id prefix to the registry fixtures and imports are checked against', () => {
    const registry = collectionsOf(WITH_TOY);
    const notes = registry.get('notes');
    expect(notes?.idPrefix).toBe('note');
    expect(notes?.schema.safeParse({ id: `note_${crypto.randomUUID()}`, text: 'x', createdAt: '2026-01-15T09:00:00.000Z' }).success).toBe(true);
    expect(notes?.schema.safeParse({ id: 'note_1', text: '', createdAt: 'yesterday' }).success).toBe(false);
    // the core's and every standard area's collections are still there, once each
    const last = ['idempotency', 'jobs', 'clocks']; // the core's bookkeeping goes after every area's
    expect(registry.names).toEqual([...collectionsOf(RESOURCES).names.filter((n) => !last.includes(n)), 'notes', ...last]);
  });
});
