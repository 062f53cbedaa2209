import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

function expectCommonHeaders(headers: Record<string, unknown>) {
  expect(headers['x-request-id']).toMatch(/^[\w.:-]+$/);
  expect(headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
  expect(headers['content-type']).toMatch(/^application\/json/);
}

describe('headers on every response (Common request rules)', () => {
  it.each([
    ['200', 'GET', '/v1/products?limit=1', KEYS.liveFull, undefined, 200],
    ['401', 'GET', '/v1/products', null, undefined, 401],
    ['403', 'POST', '/v1/forms', KEYS.liveRead, { name: 'x', fields: [] }, 403],
    ['404 unknown id', 'GET', '/v1/products/prod_00000000-0000-4000-8000-000000000000', KEYS.liveFull, undefined, 404],
    ['404 unknown route', 'GET', '/v1/nope', KEYS.liveFull, undefined, 404],
    ['404 outside /v1', 'GET', '/nope', null, undefined, 404],
    ['400', 'GET', '/v1/products?limit=0', KEYS.liveFull, undefined, 400],
  ])('%s carries X-Request-ID, X-RateLimit-* and a JSON Content-Type', async (_n, method, path, key, body, status) => {
    const res = await t.request(method, path, { key, body });
    expect(res.statusCode).toBe(status);
    expectCommonHeaders(res.headers);
    expect(() => res.json()).not.toThrow();
  });

  it('each request gets its own id; a sane caller-supplied X-Request-ID is echoed', async () => {
    const a = await t.request('GET', '/v1/products?limit=1');
    const b = await t.request('GET', '/v1/products?limit=1');
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    const echoed = await t.request('GET', '/v1/products?limit=1', { headers: { 'x-request-id': 'trace-123' } });
    expect(echoed.headers['x-request-id']).toBe('trace-123');
    const junk = await t.request('GET', '/v1/products?limit=1', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(junk.headers['x-request-id']).toMatch(/^req_/);
  });

  it('X-RateLimit-Limit reports the workspace minute quota (live 3000, sandbox 100)', async () => {
    const live = await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull });
    const sbx = await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    expect(live.headers['x-ratelimit-limit']).toBe('3000');
    expect(sbx.headers['x-ratelimit-limit']).toBe('100');
    const reset = Number(sbx.headers['x-ratelimit-reset']);
    const now = t.sandbox.clock.now() / 1000;
    expect(reset).toBeGreaterThan(now);
    expect(reset).toBeLessThanOrEqual(now + 60);
  });
});
