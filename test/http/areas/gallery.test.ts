import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../../src/core/events.ts';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { exported } from './helpers.ts';

let t: TestSandbox | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(options: Parameters<typeof testSandbox>[0] = {}) {
  t = await testSandbox({ enforceRateLimits: false, ...options });
  const events: DomainEvent[] = [];
  t.sandbox.events.on('domain', (e) => events.push(e));
  return { t, events };
}
const folder = (t: TestSandbox, body: unknown, key?: string) => t.request('POST', '/v1/gallery/folders', { body, ...(key ? { key } : {}) });
const DESTINATIONS = '9f5bcbdd-3222-40d1-97a5-0ee47c76adff'; // fixture root folder with Iceland, Norway, Romania

describe('POST /v1/gallery/folders (Gallery)', () => {
  it('answers 201 {data: folder} at the root, with the description stored', async () => {
    const { t } = await open();
    const res = await folder(t, { name: 'Campaigns', description: 'Seasonal artwork' });
    expect(res.statusCode).toBe(201);
    const data = res.json().data;
    expect(data).toMatchObject({ workspaceId: t.liveWorkspaceId, name: 'Campaigns', parentId: null, path: 'Campaigns', description: 'Seasonal artwork' });
    expect(data.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.sandbox.store.get('galleryFolders', t.liveWorkspaceId, data.id)).toMatchObject({ description: 'Seasonal artwork' });
  });

  it('computes the path from the parents', async () => {
    const { t } = await open();
    const finland = (await folder(t, { name: 'Finland', parentFolderId: DESTINATIONS })).json().data;
    expect(finland).toMatchObject({ parentId: DESTINATIONS, path: 'Destinations/Finland' });
    const lapland = (await folder(t, { name: 'Lapland', parentFolderId: finland.id.toUpperCase() })).json().data;
    expect(lapland).toMatchObject({ parentId: finland.id, path: 'Destinations/Finland/Lapland' });
  });

  it('a duplicate name under the same parent -> 409; the same name elsewhere is fine', async () => {
    const { t } = await open();
    const dup = await folder(t, { name: 'Iceland', parentFolderId: DESTINATIONS });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatch(/Iceland/);
    expect((await folder(t, { name: 'Destinations' })).statusCode).toBe(409);
    expect((await folder(t, { name: ' Destinations ' })).statusCode).toBe(409);
    expect((await folder(t, { name: 'Iceland' })).statusCode).toBe(201);
    expect((await folder(t, { name: 'Destinations' }, KEYS.sandboxFull)).statusCode).toBe(409);
  });

  it("an unknown parentFolderId -> 404; another workspace's folder -> 404; not a uuid -> 400", async () => {
    const { t } = await open();
    const res = await folder(t, { name: 'x', parentFolderId: '00000000-0000-4000-8000-000000000000' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Parent folder not found' });
    expect((await folder(t, { name: 'x', parentFolderId: DESTINATIONS }, KEYS.sandboxFull)).statusCode).toBe(404);
    expect((await folder(t, { name: 'x', parentFolderId: 'nope' })).json().code).toBe('VALIDATION_400');
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a name with a slash', { name: 'a/b' }],
    ['a description that is not a string', { name: 'x', description: 5 }],
  ])('%s -> 400', async (_name, body) => {
    const { t } = await open();
    expect((await folder(t, body)).statusCode).toBe(400);
  });

  it('401 without a key; 403 without gallery:write', async () => {
    const { t } = await open();
    expect((await t.request('POST', '/v1/gallery/folders', { key: null, body: { name: 'x' } })).statusCode).toBe(401);
    expect((await folder(t, { name: 'x' }, KEYS.liveRead)).json()).toEqual({ error: 'Forbidden' });
  });
});

type File = { id: string; status: string };
const firstFile = async (t: TestSandbox) => (await exported<File>(t, t.liveWorkspaceId, 'galleryFiles'))[0]!;
const getFile = (t: TestSandbox, id: string) => t.sandbox.store.get<File>('galleryFiles', t.liveWorkspaceId, id);

describe('DELETE /v1/gallery/files/:id (States: Gallery file; Events)', () => {
  it('answers 202 {message, status: scheduled, fileId}, marks the file deleting, removes it 30 s later and only then emits gallery.file.deleted', async () => {
    const { t, events } = await open();
    const file = await firstFile(t);
    const res = await t.request('DELETE', `/v1/gallery/files/${file.id}`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ message: expect.any(String), status: 'scheduled', fileId: file.id });
    expect(getFile(t, file.id)?.status).toBe('deleting');
    await t.sandbox.clock.advance(29_999);
    expect(getFile(t, file.id)?.status).toBe('deleting');
    expect(events.filter((e) => e.type === 'gallery.file.deleted')).toHaveLength(0);
    await t.sandbox.clock.advance(1);
    expect(getFile(t, file.id)).toBeUndefined();
    const deleted = events.filter((e) => e.type === 'gallery.file.deleted');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ workspaceId: t.liveWorkspaceId, data: { id: file.id } });
    expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`)).statusCode).toBe(404);
  });

  it('deleting a file already deleting answers 202 again and keeps the first schedule (one event)', async () => {
    const { t, events } = await open({ galleryDeletionDelayMs: 10_000 });
    const file = await firstFile(t);
    await t.request('DELETE', `/v1/gallery/files/${file.id}`);
    await t.sandbox.clock.advance(6_000);
    const again = await t.request('DELETE', `/v1/gallery/files/${file.id}`);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ status: 'scheduled', fileId: file.id });
    await t.sandbox.clock.advance(4_000);
    expect(getFile(t, file.id)).toBeUndefined();
    await t.sandbox.clock.advance(60_000);
    expect(events.filter((e) => e.type === 'gallery.file.deleted')).toHaveLength(1);
  });

  it("unknown -> 404; wrong prefix -> 400; another workspace's file -> 404; scopes and keys are checked", async () => {
    const { t } = await open();
    const missing = await t.request('DELETE', '/v1/gallery/files/gal_file_00000000-0000-4000-8000-000000000000');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Gallery file not found' });
    expect((await t.request('DELETE', '/v1/gallery/files/file_00000000-0000-4000-8000-000000000000')).statusCode).toBe(400);
    const file = await firstFile(t);
    expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`, { key: KEYS.sandboxFull })).statusCode).toBe(404);
    expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`, { key: KEYS.liveRead })).statusCode).toBe(403);
    expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`, { key: null })).statusCode).toBe(401);
    expect(getFile(t, file.id)?.status).toBe('active');
  });

  it('a reset brings the file back and cancels the job', async () => {
    const { t, events } = await open();
    const file = await firstFile(t);
    await t.request('DELETE', `/v1/gallery/files/${file.id}`);
    await t.sandbox.reset();
    await t.sandbox.clock.advance(60_000);
    expect(getFile(t, file.id)?.status).toBe('active');
    expect(events.filter((e) => e.type === 'gallery.file.deleted')).toHaveLength(0);
  });

  it('the job survives a restart, and a file left deleting without a job gets one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcs-gallery-'));
    dirs.push(dir);
    const storage = join(dir, 'db.json');
    const first = await open({ storage });
    const [a, b] = await exported<File>(first.t, first.t.liveWorkspaceId, 'galleryFiles');
    await first.t.request('DELETE', `/v1/gallery/files/${a!.id}`); // due at 09:00:30
    await first.t.sandbox.clock.advance(20_000);
    const orphan = { ...getFile(first.t, b!.id)!, status: 'deleting' };
    await first.t.sandbox.store.commit([{ type: 'put', collection: 'galleryFiles', workspaceId: first.t.liveWorkspaceId, row: orphan }]);
    await first.t.sandbox.stop();

    // the manual clock of the new process resumes where the first one stopped
    const second = await open({ storage, clockStart: '2026-01-15T09:00:20.000Z' });
    expect(getFile(second.t, a!.id)?.status).toBe('deleting');
    await second.t.sandbox.clock.advance(10_000); // the stored job keeps its own due time
    expect(getFile(second.t, a!.id)).toBeUndefined();
    expect(getFile(second.t, b!.id)?.status).toBe('deleting'); // adopted at start: due 30 s later
    await second.t.sandbox.clock.advance(20_000);
    expect(getFile(second.t, b!.id)).toBeUndefined();
    expect(
      second.events
        .filter((e) => e.type === 'gallery.file.deleted')
        .map((e) => e.data.id)
        .sort(),
    ).toEqual([a!.id, b!.id].sort());
  });
});
