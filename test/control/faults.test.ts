import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());
const addFault = (body: unknown) => t!.request('POST', '/__sandbox/faults', { key: null, body });
const products = (key: string = KEYS.liveFull) => t!.request('GET', '/v1/products?limit=1', { key });

describe('fault injection (/__sandbox/faults)', () => {
  it('answers a given status and body for the next N matching requests, then expires', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    const created = await addFault({
      method: 'get',
      path: '/v1/products',
      status: 503,
      body: { error: 'Service unavailable' },
      headers: { 'retry-after': '2' },
      times: 2,
    });
    expect(created.statusCode).toBe(201);
    const fault = created.json().data;
    expect(fault).toMatchObject({ method: 'GET', remaining: 2 });
    for (let i = 0; i < 2; i++) {
      const res = await products();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'Service unavailable' });
      expect(res.headers['retry-after']).toBe('2');
      expect(res.headers['x-sandbox-fault']).toBe(fault.id);
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    }
    expect((await products()).statusCode).toBe(200);
    expect((await t.request('GET', '/__sandbox/faults', { key: null })).json().data).toEqual([]);
  });

  it('matches by path pattern, workspace and key', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    await addFault({ path: '/v1/products/*', status: 500, workspaceId: t.sandboxWorkspaceId, times: 5 });
    const list = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(list.statusCode).toBe(200); // the pattern needs a segment after /products
    const id = list.json().data[0].id;
    expect((await t.request('GET', `/v1/products/${id}`, { key: KEYS.sandboxFull })).statusCode).toBe(500);
    const other = (await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).json().data[0].id;
    expect((await t.request('GET', `/v1/products/${other}`, { key: KEYS.liveFull })).statusCode).toBe(200);
    await t.request('DELETE', '/__sandbox/faults', { key: null });
    const readKeyId = t.sandbox.workspaces.find((w) => w.mode === 'live')!.keys.find((k) => k.key === KEYS.liveRead)!.id;
    await addFault({ key: readKeyId, status: 401, body: { error: 'Unauthorized' } });
    expect((await products(KEYS.liveFull)).statusCode).toBe(200);
    expect((await products(KEYS.liveRead)).statusCode).toBe(401);
  });

  it('probability rules are seeded: the same seed fires on the same requests', async () => {
    const pattern = async () => {
      const s = await testSandbox({ enforceRateLimits: false });
      await s.request('POST', '/__sandbox/faults', { key: null, body: { status: 429, probability: 0.5, seed: 42 } });
      const out = [];
      for (let i = 0; i < 20; i++) out.push((await s.request('GET', '/v1/products?limit=1')).statusCode);
      await s.sandbox.stop();
      return out;
    };
    const a = await pattern();
    expect(a).toEqual(await pattern());
    expect(a).toContain(429);
    expect(a).toContain(200);
  });

  it('latency-only faults delay and then answer normally', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    await addFault({ latencyMs: 5 });
    expect((await products()).statusCode).toBe(200);
  });

  it('rejects a rule that does nothing, and deletes by id', async () => {
    t = await testSandbox();
    expect((await addFault({ path: '/v1/products' })).statusCode).toBe(400);
    const id = (await addFault({ status: 500 })).json().data.id;
    expect((await t.request('DELETE', `/__sandbox/faults/${id}`, { key: null })).statusCode).toBe(200);
    expect((await t.request('DELETE', `/__sandbox/faults/${id}`, { key: null })).statusCode).toBe(404);
  });
});

describe('dropped connections', () => {
  let sandbox: Sandbox | undefined;
  afterEach(() => sandbox?.stop());

  it('drop: true closes the socket without an answer', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', enforceRateLimits: false });
    await fetch(`${sandbox.controlUrl}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/v1/products', drop: true }),
    });
    await expect(fetch(`${sandbox.url}/v1/products`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } })).rejects.toThrow();
    const after = await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    expect(after.status).toBe(200);
  });
});

describe('the bound on fault rules', () => {
  it('keeps 1,000 rules at most: past it a 409 whose one line says how to remove some; removing one makes room', async () => {
    const { MAX_FAULT_RULES } = await import('../../src/core/faults.ts');
    expect(MAX_FAULT_RULES).toBe(1000);
    t = await testSandbox({ enforceRateLimits: false });
    for (let i = 0; i < MAX_FAULT_RULES; i++) t.sandbox.context.faults.add({ path: `/v1/never-${i}`, status: 500, probability: 0.5 }, t.sandbox.clock.iso());
    const refused = await addFault({ path: '/v1/products', status: 503 });
    expect(refused.statusCode).toBe(409);
    const body = refused.json() as { error: string; code: string };
    expect(body.code).toBe('CONTROL_CONFLICT');
    expect(body.error).toMatch(
      /^This sandbox has 1000 fault rules, its limit: remove some \(DELETE \/__sandbox\/faults\/:id, DELETE \/__sandbox\/faults for all, or `sandbox fault clear`\)/,
    );
    expect(String(refused.headers['x-sandbox-reason'])).toContain('DELETE /__sandbox/faults/:id');
    const [first] = (await t.request('GET', '/__sandbox/faults', { key: null })).json().data as { id: string }[];
    expect((await t.request('DELETE', `/__sandbox/faults/${first!.id}`, { key: null })).statusCode).toBe(200);
    expect((await addFault({ path: '/v1/products', status: 503 })).statusCode).toBe(201);
  });
});
