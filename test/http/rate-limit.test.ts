import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());

describe('rate limits per workspace, on the sandbox clock (Limits)', () => {
  it('sandbox: 5 in a burst, then 429 {error, retry_after} with Retry-After; 5 more a second later (issue 39)', async () => {
    t = await testSandbox();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-remaining']).toBe('95');
    await t.sandbox.clock.advance(999);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode).toBe(429);
    await t.sandbox.clock.advance(1);
    const next = [];
    for (let i = 0; i < 6; i++) next.push((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode);
    expect(next).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('sandbox: 5 a second pass, second after second, until the 100 of the minute (issue 39: "burst 5 requests per second")', async () => {
    t = await testSandbox({ clockStart: '2026-01-15T09:00:00.000Z' });
    const passed: number[] = [];
    for (let second = 0; second < 21; second++) {
      for (let i = 0; i < 5; i++) if ((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode === 200) passed.push(second);
      await t.sandbox.clock.advance(1_000);
    }
    expect(passed.length).toBe(100);
    expect(passed.at(-1)).toBe(19); // the 21st second finds the minute's quota used
  });

  it('live: never more than 30 within one second (issue 39)', async () => {
    t = await testSandbox({ clockStart: '2026-01-15T09:00:00.000Z' });
    const statuses = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    await t.sandbox.clock.advance(600); // a bucket refilled at the minute rate would let 30 more through here
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode).toBe(429);
    await t.sandbox.clock.advance(400);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode).toBe(200);
  });

  it('sandbox: the minute quota of 100 holds even when the burst bucket has tokens', async () => {
    t = await testSandbox({ clockStart: '2026-01-15T09:00:00.000Z' });
    let ok = 0;
    for (let i = 0; i < 100; i++) {
      if ((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode === 200) ok++;
      if (i < 99) await t.sandbox.clock.advance(600); // within the burst of 5 a second
    }
    expect(ok).toBe(100);
    await t.sandbox.clock.advance(100); // 09:00:59.5: the burst allows, the minute quota does not
    const refused = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(Date.parse('2026-01-15T09:01:00.000Z') / 1000));
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    await t.sandbox.clock.advance(1_000);
    const after = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(after.statusCode).toBe(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('live: a burst of 30', async () => {
    t = await testSandbox();
    const statuses = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses[30]).toBe(429);
  });

  it('limits are per workspace: one workspace being throttled does not affect the other; keys of a workspace share it', async () => {
    t = await testSandbox();
    for (let i = 0; i < 5; i++) await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxRead })).statusCode).toBe(429);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode).toBe(200);
  });

  it('with enforcement off, limits are still reported but never enforced', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    let last;
    for (let i = 0; i < 20; i++) last = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(last!.statusCode).toBe(200);
    expect(last!.headers['x-ratelimit-remaining']).toBe('80');
  });

  it('unauthenticated requests are not counted', async () => {
    t = await testSandbox();
    for (let i = 0; i < 10; i++) expect((await t.request('GET', '/v1/products', { key: null })).statusCode).toBe(401);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).headers['x-ratelimit-remaining']).toBe('99');
  });
});
