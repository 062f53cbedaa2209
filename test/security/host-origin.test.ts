import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { raw, withoutHost } from './raw-http.ts';

/**
 * Over a real socket with the headers as a browser
 * (or an attacker's DNS) would send them: a loopback sandbox answers only
 * loopback Host names and --allowed-host ones (DNS rebinding), and no web page
 * of another origin can drive the control plane (src/core/host-guard.ts).
 */
const auth = { authorization: `Bearer ${KEYS.liveFull}` };
const json = { 'content-type': 'application/json' };
const fillParams = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => (name === 'name' ? 'snap' : `${name}_x`));

let sandbox: Sandbox;
let liveWorkspace: string;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', allowedHosts: ['proxy.test', '.dev.test'] });
  liveWorkspace = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
});
afterAll(() => sandbox.stop());

/** Books one seat in the live workspace: the record a reset would take away. */
async function book(): Promise<string> {
  for (const departure of sandbox.store.list<{ id: string }>('departures', liveWorkspace)) {
    const res = await raw(sandbox.port, 'POST', '/v1/bookings', { ...auth, ...json }, JSON.stringify({ departureId: departure.id, adults: 1 }));
    if (res.status === 201) return (JSON.parse(res.body) as { data: { id: string } }).data.id;
  }
  throw new Error('no departure of the live workspace could be booked');
}

const keyCount = async () => {
  const res = await raw(sandbox.port, 'GET', '/__sandbox/workspaces');
  return (JSON.parse(res.body) as { data: { keys: unknown[] }[] }).data.flatMap((w) => w.keys).length;
};

describe('the Host check of a sandbox on loopback (DNS rebinding)', () => {
  const refused = (port: number) => [
    'attacker.example',
    'attacker.example:4010',
    `attacker.example:${port}`,
    '127.0.0.1.attacker.example',
    'localhost.attacker.example',
    'evil.proxy.test',
    '0.0.0.0',
    'x@127.0.0.1',
  ];
  const paths = ['/__sandbox/state', '/__sandbox/workspaces', '/__sandbox/health', '/v1/products', '/', '/nowhere', '/__sandbox/nowhere'];

  it('answers 403 HOST_NOT_ALLOWED, naming the flag, with the standard headers, to every other name on every kind of route', async () => {
    for (const host of refused(sandbox.port)) {
      for (const path of paths) {
        const res = await raw(sandbox.port, 'GET', path, { host, ...auth });
        expect(res.status, `Host ${host} ${path}: ${res.body.slice(0, 120)}`).toBe(403);
        const body = JSON.parse(res.body) as { error: string; code: string };
        expect(body.code).toBe('HOST_NOT_ALLOWED');
        expect(body.error).toMatch(/^Blocked request: this host \(".*"\) is not allowed\..*--allowed-host /);
        expect(body.error).not.toContain('\n');
        expect(res.headers['x-request-id']).toMatch(/^req_/);
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
        expect(res.body).not.toContain('tcs_live_');
      }
    }
  });

  it('mints no key for a rebound page: a POST that would create one is refused too', async () => {
    const before = await keyCount();
    const res = await raw(
      sandbox.port,
      'POST',
      `/__sandbox/workspaces/${liveWorkspace}/keys`,
      { host: `attacker.example:${sandbox.port}`, ...json },
      JSON.stringify({ name: 'rebound' }),
    );
    expect(res.status).toBe(403);
    expect(await keyCount()).toBe(before);
  });

  it('answers loopback names however spelt, and the allowed hosts', async () => {
    const port = sandbox.port;
    const accepted = [
      'localhost',
      `localhost:${port}`,
      'LOCALHOST',
      `LocalHost:${port}`,
      'localhost.',
      `localhost.:${port}`,
      'app.localhost',
      '127.0.0.1',
      `127.0.0.1:${port}`,
      '127.1.2.3',
      '[::1]',
      `[::1]:${port}`,
      '[::ffff:127.0.0.1]',
      'proxy.test',
      'PROXY.TEST:8443',
      'dev.test',
      'api.dev.test',
    ];
    for (const host of accepted) {
      for (const path of ['/__sandbox/health', '/v1/products?limit=1']) {
        const res = await raw(port, 'GET', path, { host, ...auth });
        expect(res.status, `Host ${host} ${path}: ${res.body.slice(0, 160)}`).toBe(200);
      }
    }
  });

  it('answers a request with no Host at all (HTTP/1.0: no browser sends one)', async () => {
    expect(await withoutHost(sandbox.port, '/__sandbox/health')).toBe(200);
  });

  it('is off on a non-loopback --host: /v1 answers any name (keys guard it), the control plane wants its token', async () => {
    const open = await createSandbox({ port: 0, host: '0.0.0.0', storage: 'memory', clock: 'manual' });
    try {
      expect((await raw(open.port, 'GET', '/v1/products?limit=1', { host: 'attacker.example', ...auth })).status).toBe(200);
      expect((await raw(open.port, 'GET', '/v1/products?limit=1', { host: 'attacker.example' })).status).toBe(401);
      expect((await raw(open.port, 'GET', '/__sandbox/state', { host: 'attacker.example' })).status).toBe(401);
    } finally {
      await open.stop();
    }
  });
});

describe('cross-site requests to the control plane', () => {
  const crossSite = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };
  /** what a page can send without a preflight (no Content-Type, or a form's), and the other ways a browser labels it */
  const spellings = (port: number): Record<string, string>[] => [
    crossSite,
    { ...crossSite, 'content-type': 'text/plain;charset=UTF-8' },
    { ...crossSite, 'content-type': 'application/x-www-form-urlencoded' },
    { origin: 'https://evil.example' }, // a browser that sends no Sec-Fetch-Site
    { 'sec-fetch-site': 'cross-site' }, // nor Origin (a GET)
    { origin: `http://localhost:${port + 1}`, 'sec-fetch-site': 'same-site' }, // another port of localhost
    { 'sec-fetch-site': 'same-site' },
    { origin: 'null' }, // a sandboxed frame or a file:// page
    { origin: `http://127.0.0.1:${port}`.replace('127.0.0.1', 'localhost') }, // same port, another origin
  ];

  it('answers 403 CROSS_ORIGIN_REFUSED to every control route sent as a simple request, and nothing happens', async () => {
    const bookingId = await book();
    const keysBefore = await keyCount();
    const clockBefore = JSON.parse((await raw(sandbox.port, 'GET', '/__sandbox/clock')).body) as unknown;
    await sandbox.context.controlPlane.ready(); // built on first use: its routes join the catalog then
    const routes = sandbox.context.routes.routes.filter((r) => r.url.startsWith('/__sandbox'));
    expect(routes.length).toBeGreaterThan(50);
    let sent = 0;
    for (const route of routes) {
      const path = fillParams(route.url).replace('/workspaces/id_x', `/workspaces/${liveWorkspace}`);
      for (const headers of spellings(sandbox.port)) {
        const body = route.method === 'POST' && headers['content-type'] ? '{}' : undefined; // a page sends a body only with a POST
        const res = await raw(sandbox.port, route.method, path, headers, body);
        sent++;
        expect(res.status, `${route.method} ${path} ${JSON.stringify(headers)}: ${res.body.slice(0, 160)}`).toBe(403);
        if (route.method !== 'HEAD') expect((JSON.parse(res.body) as { code: string }).code).toBe('CROSS_ORIGIN_REFUSED');
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    expect(sent).toBe(routes.length * spellings(sandbox.port).length);
    // no reset, no key, no clock move
    expect((await raw(sandbox.port, 'GET', `/v1/bookings/${bookingId}`, auth)).status).toBe(200);
    expect(await keyCount()).toBe(keysBefore);
    expect(JSON.parse((await raw(sandbox.port, 'GET', '/__sandbox/clock')).body)).toEqual(clockBefore);
  });

  it('refuses a POST that is not application/json even without Origin (a browser that labels nothing): 415 saying what to send', async () => {
    const bookingId = await book();
    for (const path of ['/__sandbox/reset', `/__sandbox/workspaces/${liveWorkspace}/reset`, '/__sandbox/snapshots/snap/restore']) {
      for (const type of [undefined, 'text/plain', 'multipart/form-data; boundary=x']) {
        const res = await raw(sandbox.port, 'POST', path, type ? { 'content-type': type } : {}, type ? '' : undefined);
        expect(res.status, `${path} ${type}`).toBe(415);
        const body = JSON.parse(res.body) as { error: string; code: string };
        expect(body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
        expect(body.error).toMatch(/Content-Type: application\/json, even with no body.*curl -X POST -H 'content-type: application\/json' http:\/\//);
      }
    }
    expect((await raw(sandbox.port, 'GET', `/v1/bookings/${bookingId}`, auth)).status).toBe(200);
  });

  it('refuses a cross-origin preflight, granting no Access-Control-Allow-*', async () => {
    const res = await raw(sandbox.port, 'OPTIONS', '/__sandbox/reset', {
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(res.status).toBe(403);
    expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it("still serves its own origin, an allowed host's own origin, the address bar and non-browser clients", async () => {
    const port = sandbox.port;
    expect(
      (
        await raw(
          port,
          'POST',
          '/__sandbox/snapshots',
          { origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin', ...json },
          JSON.stringify({ name: 'own' }),
        )
      ).status,
    ).toBe(201);
    expect((await raw(port, 'GET', '/__sandbox/clock', { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await raw(port, 'GET', '/__sandbox/clock', { host: 'proxy.test', origin: 'http://proxy.test' })).status).toBe(200);
    expect((await raw(port, 'GET', '/__sandbox/clock', { host: `api.dev.test:${port}`, origin: `http://api.dev.test:${port}` })).status).toBe(200);
    expect((await raw(port, 'GET', '/__sandbox/clock', { 'sec-fetch-site': 'none' })).status).toBe(200);
    expect((await raw(port, 'POST', '/__sandbox/snapshots/own/restore', json)).status).toBe(200);
  });
});

describe('cross-site simple requests to /v1 (no CORS: a page can send them without a key, and read nothing)', () => {
  const crossSite = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' };

  it('answers 401 to each, as to any request without a key, grants no CORS, and writes nothing', async () => {
    const count = () => sandbox.store.list('bookings', liveWorkspace).length;
    const before = count();
    const departure = sandbox.store.list<{ id: string }>('departures', liveWorkspace)[0]!;
    const attempts: [string, string, Record<string, string>, string | undefined][] = [
      ['GET', '/v1/products', crossSite, undefined],
      ['POST', '/v1/bookings', { ...crossSite, 'content-type': 'text/plain;charset=UTF-8' }, JSON.stringify({ departureId: departure.id, adults: 1 })],
      ['POST', '/v1/bookings', { ...crossSite, 'content-type': 'application/x-www-form-urlencoded' }, `departureId=${departure.id}&adults=1`],
      ['POST', '/v1/forms', crossSite, undefined],
      [
        'OPTIONS',
        '/v1/bookings',
        { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
        undefined,
      ],
    ];
    for (const [method, path, headers, body] of attempts) {
      const res = await raw(sandbox.port, method, path, headers, body);
      expect(res.status, `${method} ${path}: ${res.body.slice(0, 120)}`).toBe(401);
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
    expect(count()).toBe(before);
  });

  it('answers a keyed request whatever its Origin, as production would (only a non-browser client can send the key cross-origin)', async () => {
    expect((await raw(sandbox.port, 'GET', '/v1/products?limit=1', { ...auth, origin: 'https://evil.example' })).status).toBe(200);
  });
});
