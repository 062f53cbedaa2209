import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SNAPSHOT_BYTES, DEFAULT_MAX_SNAPSHOTS, resolveOptions } from '../../src/config.ts';
import { asciiJson } from '../../src/workspaces/snapshot-shelf.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * Named snapshots are bounded (without a bound, 400 saves of the
 * whole state took RSS from 76 MB to 1,688 MB): at most maxSnapshots per
 * workspace (and of the whole state), and maxSnapshotBytes of JSON text in
 * all; past either, a 409 whose one line (and X-Sandbox-Reason) says how to
 * delete one or raise the bound.
 */
const CAP = 3;
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ maxSnapshots: CAP });
});
afterAll(() => t.sandbox.stop());

// t.request checks every answer against the served OpenAPI document: the 409 must be listed there
const control = (method: string, path: string, body?: unknown) =>
  t.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });

function expectRefusal(res: Awaited<ReturnType<typeof control>>, route: string, option: RegExp): void {
  expect(res.statusCode).toBe(409);
  const body = res.json() as { error: string; code: string };
  expect(body.code).toBe('CONTROL_CONFLICT');
  expect(body.error).not.toContain('\n');
  expect(body.error).toContain(`DELETE ${route}`);
  expect(body.error).toMatch(option);
  const reason = String(res.headers['x-sandbox-reason']);
  expect(reason).toMatch(/^CONTROL_CONFLICT/);
  expect(reason).toContain(`DELETE ${route}`);
  expect(reason).toMatch(option);
}

describe('the bounds on named snapshots', () => {
  it('are 100 per workspace and 128 MiB in all by default', () => {
    expect(DEFAULT_MAX_SNAPSHOTS).toBe(100);
    expect(DEFAULT_MAX_SNAPSHOT_BYTES).toBe(128 * 1024 * 1024);
    expect(resolveOptions({})).toMatchObject({ maxSnapshots: 100, maxSnapshotBytes: 128 * 1024 * 1024 });
  });

  it('keeps a snapshot as ASCII bytes that restore to the same rows, accents and emoji included', async () => {
    const name = 'Café ☕ 😀 naïve';
    const forms = async (ws: string) => (await control('GET', `/workspaces/${ws}/export`)).json().data.forms as { id: string; name: string }[];
    const worker = await t.sandbox.createWorkspace();
    const workerForm = (await t.request('POST', '/v1/forms', { key: worker.keys[0]!.key, body: { name, fields: [] } })).json() as { id: string };
    expect((await control('POST', `/workspaces/${worker.id}/snapshots`, { name: 'accents' })).statusCode).toBe(201);
    await t.request('POST', '/v1/forms', { key: worker.keys[0]!.key, body: { name: 'after', fields: [] } });
    expect((await control('POST', `/workspaces/${worker.id}/snapshots/accents/restore`)).statusCode).toBe(200);
    expect((await forms(worker.id)).filter((f) => f.id === workerForm.id || f.name === 'after').map((f) => f.name)).toEqual([name]);
    await worker.delete();

    const form = (await t.request('POST', '/v1/forms', { body: { name, fields: [] } })).json() as { id: string };
    expect((await control('POST', '/snapshots', { name: 'accents' })).statusCode).toBe(201);
    await t.request('POST', '/v1/forms', { body: { name: 'after', fields: [] } });
    expect((await control('POST', '/snapshots/accents/restore')).statusCode).toBe(200);
    expect((await forms(t.liveWorkspaceId)).filter((f) => f.id === form.id || f.name === 'after').map((f) => f.name)).toEqual([name]);
    expect((await control('DELETE', '/snapshots/accents')).statusCode).toBe(200);
  });

  it('asciiJson escapes past ASCII and moves the spans to match', () => {
    const text = '{"a":{"x":"é"},"b":{"y":"😀"}}';
    const { json, spans } = asciiJson(text, [
      ['a', 5, 14],
      ['b', 19, 29],
    ]);
    const ascii = json.toString('latin1');
    expect(/^[\x00-\x7f]*$/.test(ascii)).toBe(true);
    expect(JSON.parse(ascii)).toEqual(JSON.parse(text));
    for (const [name, start, end] of spans!) expect(JSON.parse(ascii.slice(start, end))).toEqual(JSON.parse(text)[name]);
  });

  it("a workspace's snapshots past maxSnapshots: 409 naming its delete route and the option; saving a kept name again and a delete make room", async () => {
    const ws = t.liveWorkspaceId;
    for (let i = 0; i < CAP; i++) expect((await control('POST', `/workspaces/${ws}/snapshots`, { name: `s${i}` })).statusCode).toBe(201);
    expectRefusal(
      await control('POST', `/workspaces/${ws}/snapshots`, { name: 'one-too-many' }),
      `/__sandbox/workspaces/${ws}/snapshots/:name`,
      /--max-snapshots <n>.*maxSnapshots/,
    );
    expect((await control('GET', `/workspaces/${ws}/snapshots`)).json().data).toHaveLength(CAP);
    // the same name again replaces it: no new place is taken
    expect((await control('POST', `/workspaces/${ws}/snapshots`, { name: 's0' })).statusCode).toBe(201);
    // another workspace has its own places
    expect((await control('POST', `/workspaces/${t.sandboxWorkspaceId}/snapshots`, { name: 's0' })).statusCode).toBe(201);
    expect((await control('DELETE', `/workspaces/${ws}/snapshots/s1`)).statusCode).toBe(200);
    expect((await control('POST', `/workspaces/${ws}/snapshots`, { name: 'one-more' })).statusCode).toBe(201);
  });

  it('whole-state snapshots past maxSnapshots: 409 naming DELETE /__sandbox/snapshots/:name', async () => {
    for (let i = 0; i < CAP; i++) expect((await control('POST', '/snapshots', { name: `g${i}` })).statusCode).toBe(201);
    expectRefusal(await control('POST', '/snapshots', { name: 'one-too-many' }), '/__sandbox/snapshots/:name', /--max-snapshots <n>.*maxSnapshots/);
    expect((await control('DELETE', '/snapshots/g0')).statusCode).toBe(200);
    expect((await control('POST', '/snapshots', { name: 'g3' })).statusCode).toBe(201);
  });

  it("a deleted workspace's snapshots no longer count", async () => {
    const created = (await control('POST', '/workspaces', {})).json().data as { id: string };
    expect((await control('POST', `/workspaces/${created.id}/snapshots`, { name: 'x' })).statusCode).toBe(201);
    const before = t.sandbox.context.workspaces.snapshots.bytes;
    expect((await control('DELETE', `/workspaces/${created.id}`)).statusCode).toBe(200);
    expect(t.sandbox.context.workspaces.snapshots.bytes).toBeLessThan(before);
  });
});

describe('the bound on the bytes of all snapshots', () => {
  let small: TestSandbox;
  beforeAll(async () => {
    small = await testSandbox({ maxSnapshotBytes: 1024 });
  });
  afterAll(() => small.sandbox.stop());
  const smallControl = (method: string, path: string, body?: unknown) =>
    small.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });

  it('refuses a snapshot that would take the JSON of all snapshots past maxSnapshotBytes, and keeps nothing of it', async () => {
    const res = await smallControl('POST', '/snapshots', { name: 'big' });
    expectRefusal(res, '/__sandbox/snapshots/:name', /--max-snapshot-mib <n>.*maxSnapshotBytes/);
    expect(res.json().error).toMatch(/past the limit of 1 KiB for all snapshots/);
    expect((await smallControl('GET', '/snapshots')).json().data).toEqual([]);
    expect(small.sandbox.context.workspaces.snapshots.bytes).toBe(0);
    // a created workspace's own rows (none written yet) fit
    const created = (await smallControl('POST', '/workspaces', {})).json().data as { id: string };
    expect((await smallControl('POST', `/workspaces/${created.id}/snapshots`, { name: 'empty' })).statusCode).toBe(201);
  });
});
