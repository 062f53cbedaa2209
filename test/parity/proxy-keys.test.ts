import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { call, fakeTarget, type FakeTarget } from './helpers/fake-target.ts';
import { stubRecorder } from './helpers/stub-recorder.ts';

/**
 * The replay runs with the workspace's key in place of the client's,
 * and the client's key is never kept by the sandbox. The client holds a key only the target knows.
 */
let target: FakeTarget;
let proxied: Sandbox;
let recorder: ReturnType<typeof stubRecorder>;
let realKey: string;

beforeAll(async () => {
  target = await fakeTarget();
  proxied = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url } });
  recorder = stubRecorder();
  proxied.context.parity.recorder = recorder;
  const ws = proxied.proxy!.workspaceId;
  const created = await fetch(`${target.sandbox.controlUrl}/workspaces/${ws}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'the real account key' }),
  });
  realKey = ((await created.json()) as { data: { key: string } }).data.key;
});
afterAll(async () => {
  await proxied?.stop();
  await target?.stop();
});

describe("the client's key", () => {
  it('goes to the target only: the replay uses the workspace key, and the sandbox keeps no trace of it', async () => {
    const res = await call(proxied.proxy!.url, 'GET', '/v1/products?limit=1', realKey);
    expect(res.status).toBe(200);
    await proxied.proxy!.settled();
    expect(recorder.exchanges.at(-1)!.sandbox?.status).toBe(200); // with the client's key it would be a 401
    // the sandbox itself does not know that key
    expect((await call(proxied.url, 'GET', '/v1/products?limit=1', realKey)).status).toBe(401);

    const log = await call(proxied.url, 'GET', '/__sandbox/requests?limit=100', null);
    expect(log.status).toBe(200);
    const replayed = (log.json.data as { requestId: string; path: string; status: number }[]).find(
      (r) => r.path.startsWith('/v1/products') && r.status === 200,
    )!;
    expect(replayed).toBeDefined();
    const detail = await call(proxied.url, 'GET', `/__sandbox/requests/${replayed.requestId}`, null);
    expect(detail.status).toBe(200);
    for (const text of [log.bytes.toString(), detail.bytes.toString(), JSON.stringify(proxied.store.exportCollections())]) {
      expect(text).not.toContain(realKey);
    }
  });

  it('a request without a key is replayed without one: both sides answer 401', async () => {
    const res = await call(proxied.proxy!.url, 'GET', '/v1/products', null);
    expect(res.status).toBe(401);
    await proxied.proxy!.settled();
    expect(recorder.exchanges.at(-1)!.sandbox?.status).toBe(401);
  });
});
