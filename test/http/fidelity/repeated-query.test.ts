import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

/** A query parameter sent twice (`?limit=5&limit=10`) is answered as a refusal that says so, not `expected number, received NaN`. */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(async () => {
  await t.sandbox.stop();
});

describe('a query parameter given twice', () => {
  it('is a 400 VALIDATION_400 naming the parameter and its values, in one line', async () => {
    const res = await t.request('GET', '/v1/products?limit=5&limit=10');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Validation failed',
      code: 'VALIDATION_400',
      details: [{ message: 'querystring.limit: given 2 times ("5", "10"); send it once' }],
    });
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['x-ratelimit-limit']).toBeTruthy();
  });

  it('whatever the parameter and the route: strings, enums, analytics, the control plane', async () => {
    const cases: [string, string][] = [
      ['/v1/products?status=active&status=draft', 'querystring.status: given 2 times ("active", "draft"); send it once'],
      ['/v1/bookings?q=a&q=b&q=c', 'querystring.q: given 3 times ("a", "b", "c"); send it once'],
      [
        '/v1/analytics/comms/delivery-events?from=2026-01-01&from=2026-01-02&to=2026-01-03',
        'querystring.from: given 2 times ("2026-01-01", "2026-01-02"); send it once',
      ],
      ['/__sandbox/deliveries?limit=1&limit=2', 'querystring.limit: given 2 times ("1", "2"); send it once'],
    ];
    for (const [url, message] of cases) {
      const res = await t.request('GET', url, url.startsWith('/__sandbox') ? { key: null } : {});
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ code: 'VALIDATION_400', details: [{ message }] });
    }
  });

  it('a parameter the route does not take is ignored, repeated or not; given once, limit works', async () => {
    expect((await t.request('GET', '/v1/products?foo=1&foo=2&limit=1')).statusCode).toBe(200);
    // a name that is also a property of every object is still just an unknown parameter
    for (const name of ['__proto__', 'constructor', 'toString'])
      expect((await t.request('GET', `/v1/products?${name}=1&${name}=2&limit=1`)).statusCode, name).toBe(200);
    expect((await t.request('GET', '/v1/products?limit=1')).json().data).toHaveLength(1);
  });
});
