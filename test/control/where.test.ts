import { afterEach, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/** GET / and GET /__sandbox say where things are. */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

describe('the index of where things are', () => {
  it('GET / answers the API, control plane, OpenAPI and health URLs, built from the Host used', async () => {
    t = await testSandbox({ allowedHosts: ['sandbox.local'] }); // a proxy's name (loopback answers no other)
    const res = await t.request('GET', '/', { key: null, headers: { host: 'sandbox.local:4010' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      name: 'travel-commerce-sandbox',
      api: 'http://sandbox.local:4010/v1',
      controlPlane: 'http://sandbox.local:4010/__sandbox',
      openapi: 'http://sandbox.local:4010/__sandbox/openapi.json',
      health: 'http://sandbox.local:4010/__sandbox/health',
      stream: 'http://sandbox.local:4010/__sandbox/stream',
    });
  });

  it('GET /__sandbox answers the same, wrapped in data like every control route, and its links work', async () => {
    t = await testSandbox();
    const res = await t.request('GET', '/__sandbox', { key: null, headers: { host: 'localhost' } });
    expect(res.statusCode).toBe(200);
    const index = res.json().data;
    expect(index.openapi).toBe('http://localhost/__sandbox/openapi.json');
    expect((await t.request('GET', new URL(index.health).pathname, { key: null })).statusCode).toBe(200);
    expect((await t.request('GET', new URL(index.openapi).pathname, { key: null })).statusCode).toBe(200);
  });
});
