import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
afterEach(() => t.sandbox.stop());
const get = (key: string) => t.request('GET', '/v1/products?limit=1', { key });
async function storm(key: string, n: number) {
  for (let i = 0; i < n; i++) await get(key);
}

describe('emulated suspension', () => {
  it('is off by default: fifty 429s in a row never suspend', async () => {
    t = await testSandbox();
    await storm(KEYS.sandboxFull, 55);
    expect((await get(KEYS.sandboxFull)).statusCode).toBe(429);
    await t.sandbox.clock.advance(1_000);
    expect((await get(KEYS.sandboxFull)).statusCode).toBe(200);
    expect((await t.request('GET', '/__sandbox/suspension', { key: null })).json().data).toMatchObject({
      enabled: false,
      maxViolations: 20,
      windowMs: 60_000,
      durationMs: 300_000,
      suspended: [],
    });
  });

  it('with --suspension, more than 20 429s in a minute suspend one workspace for 5 minutes of its own clock', async () => {
    t = await testSandbox({ suspension: true });
    const w = await t.sandbox.createWorkspace();
    await storm(w.keys[0]!.key, 5 + 20);
    const suspended = await get(w.keys[0]!.key);
    expect(suspended.statusCode).toBe(429);
    expect(suspended.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 300 });
    expect(suspended.headers['x-ratelimit-remaining']).toBe('0');
    expect(suspended.headers['x-ratelimit-reset']).toBe('1768467900'); // the workspace's clock is at 09:00:00; suspended until 2026-01-15T09:05:00Z
    expect((await get(KEYS.sandboxFull)).statusCode).toBe(200); // another workspace is not suspended
    await t.sandbox.clock.advance(60_000); // the global clock moves every workspace
    expect((await get(w.keys[0]!.key)).json().retry_after).toBe(240);
    await w.advance(240_000);
    expect((await get(w.keys[0]!.key)).statusCode).toBe(200);
  });
});
