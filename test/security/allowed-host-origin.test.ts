import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';

/**
 * `--allowed-host` makes a name reachable, and that name's
 * own origin only. A page on another port of the allowed host, or on a
 * sibling subdomain under a `.name` rule, is another origin and may not drive
 * the control plane, exactly as on loopback. Through the app (app.inject), the
 * Host check and the control scope's hook both run.
 */
const PORT = 4010;
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', allowedHosts: ['devbox', '.example.test'] });
});
afterAll(() => sandbox.stop());

let snapshot = 0;
/** A control-plane POST as a page's fetch sends it: JSON, with its Origin and Sec-Fetch-Site. */
const post = (host: string, origin: string, site?: string) =>
  sandbox.app.inject({
    method: 'POST',
    url: '/__sandbox/snapshots',
    headers: { host, origin, 'content-type': 'application/json', ...(site ? { 'sec-fetch-site': site } : {}) },
    payload: JSON.stringify({ name: `s${++snapshot}` }),
  });

describe('an allowed host serves its own origin only', () => {
  it.each([
    ['devbox:4010', 'http://devbox:9999', 'another port of the allowed host'],
    ['devbox:4010', 'http://devbox', 'its default port'],
    ['devbox:4010', 'https://devbox:4010', 'https: the sandbox serves http'],
    [`a.example.test:${PORT}`, `http://b.example.test:${PORT}`, 'a sibling subdomain under .example.test'],
    [`a.example.test:${PORT}`, `http://example.test:${PORT}`, 'the parent name of the rule'],
    [`127.0.0.1:${PORT}`, `http://devbox:${PORT}`, 'an allowed name, sent to a loopback Host'],
  ])('Host %s, Origin %s (%s): 403 CROSS_ORIGIN_REFUSED, and no snapshot', async (host, origin) => {
    const before = (await sandbox.app.inject({ method: 'GET', url: '/__sandbox/snapshots' })).json<{ data: unknown[] }>().data.length;
    const res = await post(host, origin);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json()).toMatchObject({ code: 'CROSS_ORIGIN_REFUSED', error: expect.stringContaining(`answers only its own origin (http://${host})`) });
    expect((await sandbox.app.inject({ method: 'GET', url: '/__sandbox/snapshots' })).json<{ data: unknown[] }>().data).toHaveLength(before);
  });

  it.each([
    ['devbox:4010', 'http://devbox:4010'],
    ['DevBox:4010', 'http://devbox:4010'],
    ['devbox', 'http://devbox:80'],
    [`a.example.test:${PORT}`, `http://a.example.test:${PORT}`],
    [`example.test:${PORT}`, `http://example.test:${PORT}`],
  ])('Host %s, Origin %s: its own origin, 201', async (host, origin) => {
    const res = await post(host, origin, 'same-origin');
    expect(res.statusCode, res.body).toBe(201);
  });

  it('a same-site page on another port is refused, with or without its Origin', async () => {
    expect((await post('devbox:4010', 'http://devbox:9999', 'same-site')).statusCode).toBe(403);
    const get = await sandbox.app.inject({ method: 'GET', url: '/__sandbox/clock', headers: { host: 'devbox:4010', 'sec-fetch-site': 'same-site' } });
    expect(get.json()).toMatchObject({ code: 'CROSS_ORIGIN_REFUSED', error: expect.stringContaining('Sec-Fetch-Site: same-site') });
    const crossSite = await sandbox.app.inject({ method: 'GET', url: '/__sandbox/clock', headers: { host: 'devbox:4010', 'sec-fetch-site': 'cross-site' } });
    expect(crossSite.statusCode).toBe(403);
  });
});

describe('loopback origins are unchanged', () => {
  it.each([
    [`localhost:${PORT}`, `http://localhost:${PORT}`, 201],
    [`127.0.0.1:${PORT}`, `http://127.0.0.1:${PORT}`, 201],
    [`[::1]:${PORT}`, `http://[::1]:${PORT}`, 201],
    [`127.1:${PORT}`, `http://127.0.0.1:${PORT}`, 201], // the same address, as the URL parser spells it
    [`localhost:${PORT}`, `http://127.0.0.1:${PORT}`, 403], // another origin, though the same machine
    [`127.0.0.1:${PORT}`, `http://localhost:${PORT}`, 403],
    [`localhost:${PORT}`, `http://localhost:${PORT + 1}`, 403],
  ])('Host %s, Origin %s: %i', async (host, origin, status) => {
    expect((await post(host, origin)).statusCode).toBe(status);
  });

  it('the inspector, served from the control plane, loads and calls it from its own origin', async () => {
    const host = `127.0.0.1:${PORT}`;
    const page = await sandbox.app.inject({ method: 'GET', url: '/__sandbox/ui/', headers: { host, 'sec-fetch-site': 'none' } });
    expect(page.statusCode).not.toBe(403);
    const call = await sandbox.app.inject({
      method: 'GET',
      url: '/__sandbox/workspaces',
      headers: { host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(call.statusCode).toBe(200);
  });
});
