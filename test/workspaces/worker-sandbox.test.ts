import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, workerSandbox, type Sandbox } from '../../src/index.ts';
import { workerNumber } from '../../src/control/worker-sandbox.ts';

/**
 * workerSandbox(): the workspace `sandbox exec --workers` made for
 * this test worker, found through VITEST_POOL_ID or JEST_WORKER_ID, or one of
 * its own when there is none. A real sandbox on a port, as a worker sees it.
 */
let sandbox: Sandbox;
/** what `sandbox exec --workers 2` exports: two created workspaces */
const exported: Record<string, string> = {};

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  for (const i of [1, 2]) {
    const ws = await sandbox.createWorkspace({ name: `worker ${i}` });
    exported[`SANDBOX_API_KEY_${i}`] = ws.keys[0]!.key;
    exported[`SANDBOX_WORKSPACE_ID_${i}`] = ws.id;
  }
});
afterAll(() => sandbox.stop());

const api = (key: string, path: string, body?: unknown) =>
  fetch(`${sandbox.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const workspaceCount = async () => ((await (await fetch(`${sandbox.url}/__sandbox/workspaces`)).json()) as { data: unknown[] }).data.length;

describe('workerSandbox()', () => {
  it('maps VITEST_POOL_ID to the workspace exec made for that worker, and resets it for the next test file', async () => {
    const env = { ...exported, SANDBOX_URL: sandbox.url, VITEST_POOL_ID: '2' };
    const first = await workerSandbox({ env });
    expect(first).toMatchObject({ url: sandbox.url, key: exported.SANDBOX_API_KEY_2, workspaceId: exported.SANDBOX_WORKSPACE_ID_2, worker: 2, created: false });
    const urls = async (key: string) => ((await (await api(key, '/v1/webhooks/subscriptions')).json()) as { data: { url: string }[] }).data.map((s) => s.url);
    const template = await urls(first.key);
    const made = await api(first.key, '/v1/webhooks/subscriptions', { url: 'https://example.com/hooks', events: ['booking.created'] });
    expect(made.status).toBe(201);
    expect(await urls(first.key)).toContain('https://example.com/hooks');
    await first.release(); // exec's workspace stays
    const next = await workerSandbox({ env }); // the worker's next file
    expect(next.workspaceId).toBe(first.workspaceId);
    expect(await urls(next.key)).toEqual(template); // what the file before wrote is gone
  });

  it('maps JEST_WORKER_ID the same way', async () => {
    const worker = await workerSandbox({ env: { ...exported, SANDBOX_URL: sandbox.url, JEST_WORKER_ID: '1' } });
    expect(worker).toMatchObject({ key: exported.SANDBOX_API_KEY_1, worker: 1, created: false });
  });

  it('creates a workspace of its own when exec made none for this worker, and deletes it on release', async () => {
    const before = await workspaceCount();
    const worker = await workerSandbox({ env: { ...exported, SANDBOX_URL: sandbox.url, VITEST_POOL_ID: '3' }, rateLimits: 'report' });
    expect(worker).toMatchObject({ worker: 3, created: true });
    expect(Object.values(exported)).not.toContain(worker.key);
    const res = await api(worker.key, '/v1/products?limit=1');
    expect(res.status).toBe(200);
    expect(await workspaceCount()).toBe(before + 1);
    await worker.release();
    expect(await workspaceCount()).toBe(before);
  });

  it('without a worker id (a plain script), creates one too', async () => {
    const worker = await workerSandbox({ env: { ...exported, SANDBOX_URL: sandbox.url } });
    expect(worker).toMatchObject({ worker: null, created: true });
    await worker.release();
  });

  it('says in one line what to do when no sandbox URL is given', async () => {
    await expect(workerSandbox({ env: { VITEST_POOL_ID: '1' } })).rejects.toThrow(/SANDBOX_URL is not set; run the tests under `npx sandbox exec`/);
  });

  it('reads worker numbers from 1 only', () => {
    expect(workerNumber({ VITEST_POOL_ID: '4' })).toBe(4);
    expect(workerNumber({ JEST_WORKER_ID: '1' })).toBe(1);
    expect(workerNumber({ JEST_WORKER_ID: '0' })).toBeNull();
    expect(workerNumber({ VITEST_POOL_ID: 'x' })).toBeNull();
    expect(workerNumber({})).toBeNull();
  });

  it('takes the id of the runner that is running: a Jest run started from a Vitest test inherits VITEST_POOL_ID', () => {
    const both = { VITEST_POOL_ID: '1', JEST_WORKER_ID: '3' };
    expect(workerNumber(both, false)).toBe(3); // a Jest worker
    expect(workerNumber(both, true)).toBe(1); // a Vitest worker (this file runs in one)
    expect(workerNumber(both)).toBe(1);
  });
});
