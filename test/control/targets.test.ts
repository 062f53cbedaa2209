/**
 * A control-plane target that does not exist is refused in
 * one line, never accepted to apply to nothing: a fault for an unknown
 * workspace, key or /v1 path would be a 201 that never fires. A workspace's
 * name where its id belongs gets the id in the reason.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());
const control = (method: string, path: string, body?: unknown) =>
  t!.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });
const reason = (res: { headers: Record<string, unknown> }) => String(res.headers['x-sandbox-reason']);

describe('control-plane targets are resolved or refused', () => {
  it('a fault naming an unknown workspace, a name, an unknown key or a path no route has is refused, and nothing is added', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const workspace = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
    const unknown = await control('POST', '/faults', { workspaceId: 'wksp_nope', status: 503 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: 'Workspace wksp_nope not found' });
    expect(reason(unknown)).toMatch(/^NOT_FOUND no workspace has the id wksp_nope: GET \/__sandbox\/workspaces/);

    const byName = await control('POST', '/faults', { workspaceId: workspace.name.toUpperCase(), status: 503 });
    expect(byName.statusCode).toBe(404);
    expect(reason(byName)).toBe(
      `WORKSPACE_NAME_NOT_ID "${workspace.name.toUpperCase()}" is the name of workspace ${workspace.id}: send its id (the CLI's --workspace takes either)`,
    );

    const key = await control('POST', '/faults', { key: 'tcs_nope', status: 503 });
    expect(key.statusCode).toBe(404);
    expect(reason(key)).toMatch(/no key has the id or listing prefix tcs_nope/);
    const wholeKey = await control('POST', '/faults', { key: workspace.keys[0]!.key, status: 503 });
    expect(reason(wholeKey)).toMatch(new RegExp(`it looks like a whole key: send its id ${workspace.keys[0]!.id}`));

    const path = await control('POST', '/faults', { path: '/v1/prodcts', status: 503 });
    expect(path.statusCode).toBe(400);
    expect(reason(path)).toMatch(/^CONTROL_INVALID path \/v1\/prodcts matches no \/v1 route, so the fault could never fire; did you mean \/v1\/products\?/);
    expect(reason(await control('POST', '/faults', { path: '/__sandbox/health', status: 503 }))).toMatch(/not under \/v1/);
    expect((await control('GET', '/faults')).json().data).toEqual([]);
  });

  it('a fault naming what exists is accepted: an id, a key id or prefix, a literal path, a pattern', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const workspace = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
    const key = workspace.keys[0]!;
    const prefix = (await control('GET', `/workspaces/${workspace.id}`)).json().data.keys.find((k: { id: string }) => k.id === key.id).keyPrefix;
    for (const rule of [
      { workspaceId: workspace.id },
      { key: key.id },
      { key: prefix },
      { path: '/v1/products' },
      { path: '/v1/bookings/bkg_123/passengers' },
      { path: '/v1/products/*' },
      { path: '/v1/**' },
    ])
      expect((await control('POST', '/faults', { ...rule, status: 503 })).statusCode, JSON.stringify(rule)).toBe(201);
  });

  it('every workspace route answers a name with the id it should have been', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const workspace = t.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const name = encodeURIComponent(workspace.name);
    for (const [method, path, body] of [
      ['POST', `/workspaces/${name}/clock/advance`, { ms: 1000 }],
      ['GET', `/workspaces/${name}/clock`, undefined],
      ['POST', `/workspaces/${name}/snapshots`, { name: 'before' }],
      ['POST', '/rate-limits/exhaust', { workspaceId: workspace.name }],
      ['GET', `/rate-limits?workspaceId=${name}`, undefined],
      ['POST', '/seed', { workspaceId: workspace.name, bookings: 1 }],
    ] as const) {
      const res = await control(method, path, body);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(reason(res), `${method} ${path}`).toContain(`is the name of workspace ${workspace.id}: send its id`);
    }
  });
});
