import { afterEach, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * A created workspace's rate limits are chosen at creation (issue 24): a test
 * worker on a frozen manual clock takes `report` and is never refused; a test
 * of the 429 itself takes `enforce` and refills by advancing its own clock.
 */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

const control = (method: string, path: string, body?: unknown) =>
  t!.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });

async function create(body: Record<string, unknown>) {
  const res = await control('POST', '/workspaces', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; rateLimits: string; keys: { key: string }[] };
}

describe('rateLimits chosen when a workspace is created', () => {
  it('report: 150 requests on a frozen manual clock all answer 200; the ones over the limit say so beside the documented headers', async () => {
    t = await testSandbox();
    const w = await create({ rateLimits: 'report' });
    expect(w.rateLimits).toBe('report');
    const statuses: number[] = [];
    let reported = 0;
    for (let i = 0; i < 150; i++) {
      const res = await t.request('GET', '/v1/products?limit=1', { key: w.keys[0]!.key });
      statuses.push(res.statusCode);
      if (res.headers['x-sandbox-rate-limit']) reported += 1;
      if (i === 149) expect(res.headers['x-ratelimit-remaining']).toBe('0');
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(reported).toBe(145); // the burst of 5 passes on its own
    expect(t.sandbox.report().rateLimits).toEqual({ refused: 0, reported: 145 });
  });

  it('enforce: the sixth request is a 429 until the workspace advances its own clock', async () => {
    t = await testSandbox({ enforceRateLimits: false }); // an explicit choice wins over the sandbox's default
    const w = await create({ rateLimits: 'enforce' });
    const products = () => t!.request('GET', '/v1/products?limit=1', { key: w.keys[0]!.key });
    for (let i = 0; i < 5; i++) expect((await products()).statusCode).toBe(200);
    const refused = await products();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    expect((await control('POST', `/workspaces/${w.id}/clock/advance`, { ms: 1000 })).statusCode).toBe(200);
    expect((await products()).statusCode).toBe(200);
  });

  it('without a choice follows the sandbox: enforce by default, report under enforceRateLimits false; sandbox.createWorkspace takes it too', async () => {
    t = await testSandbox();
    expect((await create({})).rateLimits).toBe('enforce');
    expect((await t.sandbox.createWorkspace({ rateLimits: 'report' })).rateLimits).toBe('report');
    await t.sandbox.stop();
    t = await testSandbox({ enforceRateLimits: false });
    expect((await create({})).rateLimits).toBe('report');
    const bad = await control('POST', '/workspaces', { rateLimits: 'sometimes' });
    expect(bad.statusCode).toBe(400);
  });
});
