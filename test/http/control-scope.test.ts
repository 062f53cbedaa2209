import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The /__sandbox scope's hooks (src/http/control-scope.ts): the origin and POST guards before the token, the token itself
 * (header or Bearer), the control plane's own 404, that control requests stay
 * out of the request log, and that a control route acting on a workspace runs
 * on that workspace's clock.
 */
const TOKEN = 'secret-token-123';
let guarded: Sandbox;
beforeAll(async () => {
  guarded = await createSandbox({ listen: false, host: '0.0.0.0', controlToken: TOKEN, clock: 'manual', storage: 'memory' });
});
afterAll(() => guarded.stop());

const get = (url: string, headers: Record<string, string> = {}) => guarded.app.inject({ method: 'GET', url, headers });
const reasonOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-sandbox-reason'] ?? '');

describe('the control token', () => {
  it('is taken from X-Sandbox-Token or an Authorization Bearer, the scheme in any case', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'x-sandbox-token': TOKEN },
      { authorization: `Bearer ${TOKEN}` },
      { authorization: `bearer ${TOKEN}` },
      { authorization: `BEARER ${TOKEN}` },
    ]) {
      expect((await get('/__sandbox/health', headers)).statusCode, JSON.stringify(headers)).toBe(200);
    }
  });

  it('missing: 401, the reason says no token was sent', async () => {
    const res = await get('/__sandbox/health');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Unauthorized: the control plane needs the sandbox control token (X-Sandbox-Token)' });
    expect(reasonOf(res)).toMatch(/^CONTROL_TOKEN_REQUIRED no X-Sandbox-Token header/);
  });

  it('wrong: 401, the reason says the token does not match', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'x-sandbox-token': 'wrong-token' },
      { authorization: 'Bearer wrong-token' },
      { 'x-sandbox-token': `${TOKEN}x` },
    ]) {
      const res = await get('/__sandbox/health', headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(reasonOf(res)).toMatch(/^CONTROL_TOKEN_REQUIRED the control token sent does not match/);
    }
  });

  it('an Authorization that is not exactly "Bearer <token>" sends no token', async () => {
    for (const authorization of [TOKEN, `Basic ${TOKEN}`, `Bearer  ${TOKEN}`, `Bearer ${TOKEN} x`, `xBearer ${TOKEN}`, 'Bearer ']) {
      const res = await get('/__sandbox/health', { authorization });
      expect(res.statusCode, authorization).toBe(401);
      expect(reasonOf(res), authorization).toMatch(/^CONTROL_TOKEN_REQUIRED no X-Sandbox-Token header/);
    }
  });

  it('X-Sandbox-Token wins over Authorization', async () => {
    expect((await get('/__sandbox/health', { 'x-sandbox-token': TOKEN, authorization: 'Bearer wrong' })).statusCode).toBe(200);
    expect((await get('/__sandbox/health', { 'x-sandbox-token': 'wrong', authorization: `Bearer ${TOKEN}` })).statusCode).toBe(401);
  });

  it("guards the control plane's 404 too, and that 404 names the route", async () => {
    expect((await get('/__sandbox/nowhere')).statusCode).toBe(401);
    const res = await get('/__sandbox/nowhere?x=1', { 'x-sandbox-token': TOKEN });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Route GET /__sandbox/nowhere not found' });
  });

  it('the API is not behind it', async () => {
    const res = await guarded.app.inject({ method: 'GET', url: '/v1/products?limit=1', headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    expect(res.statusCode).toBe(200);
  });
});

describe('the guards come before the token', () => {
  it('another origin is refused with 403 even with the right token', async () => {
    const res = await get('/__sandbox/health', { 'x-sandbox-token': TOKEN, origin: 'http://attacker.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('CROSS_ORIGIN_REFUSED');
    const noToken = await get('/__sandbox/health', { origin: 'http://attacker.example' });
    expect(noToken.statusCode).toBe(403);
    const site = await get('/__sandbox/health', { 'x-sandbox-token': TOKEN, 'sec-fetch-site': 'cross-site' });
    expect(site.statusCode).toBe(403);
    expect(site.json().error).toContain('Sec-Fetch-Site: cross-site');
  });

  it('its own origin passes: the Host the request was sent to', async () => {
    const res = await get('/__sandbox/health', { 'x-sandbox-token': TOKEN, host: 'box.internal:4010', origin: 'http://box.internal:4010' });
    expect(res.statusCode).toBe(200);
  });

  it('a POST that is not JSON is a 415 whose curl example is the URL it was sent to, without the query', async () => {
    const res = await guarded.app.inject({
      method: 'POST',
      url: '/__sandbox/reset?confirm=1',
      headers: { 'x-sandbox-token': TOKEN, host: 'box.internal:4010', 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatch(
      /^Unsupported Content-Type "text\/plain": .*curl -X POST -H 'content-type: application\/json' http:\/\/box\.internal:4010\/__sandbox\/reset$/,
    );
  });

  it('the URL in that example is cut at 200 characters of path', async () => {
    const path = `/__sandbox/${'a'.repeat(300)}`;
    const res = await guarded.app.inject({ method: 'POST', url: path, headers: { host: 'box.internal:4010' } });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatch(/^No Content-Type: /);
    expect(res.json().error.endsWith(` http://box.internal:4010${path.slice(0, 200)}`)).toBe(true);
  });
});

describe('on a loopback sandbox', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await testSandbox();
  });
  afterAll(() => t.sandbox.stop());

  it('the control plane needs no token', async () => {
    expect((await t.request('GET', '/__sandbox/health', { key: null })).statusCode).toBe(200);
  });

  it('control requests stay out of the request log; API requests are in it', async () => {
    const seen: string[] = [];
    const off = t.sandbox.events.on('request', (e) => seen.push(e.path));
    try {
      await t.request('GET', '/__sandbox/health', { key: null });
      await t.request('GET', '/__sandbox/nowhere', { key: null });
      await t.request('GET', '/v1/products?limit=1');
    } finally {
      off();
    }
    expect(seen).toEqual(['/v1/products?limit=1']);
  });

  it("a control route on /workspaces/:id runs on that workspace's clock", async () => {
    const w = await t.sandbox.createWorkspace({ name: 'clocked' });
    await w.advance(5 * 86_400_000);
    const res = await t.request('POST', `/__sandbox/workspaces/${w.id}/keys`, { key: null, body: { name: 'later' } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.createdAt).toBe(t.sandbox.clock.isoIn(w.id));
    expect(res.json().data.createdAt).not.toBe(t.sandbox.clock.isoIn(null));
  });

  it("a control route with a workspaceId in its body runs on that workspace's clock", async () => {
    const w = await t.sandbox.createWorkspace({ name: 'exhausted' });
    await w.advance(3 * 86_400_000);
    const res = await t.request('POST', '/__sandbox/rate-limits/exhaust', { key: null, body: { workspaceId: w.id } });
    expect(res.statusCode, res.body).toBe(200);
    const bucket = res.json().data.find((b: { id: string }) => b.id === w.id);
    expect(bucket).toMatchObject({ remaining: 0, reset: t.sandbox.clock.nowIn(w.id) / 1000 + 60 });
  });
});

describe('a request without a Host (HTTP/1.0)', () => {
  it("the 415's curl example names the default address", async () => {
    const listening = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(listening.port, '127.0.0.1', () =>
          socket.end('POST /__sandbox/reset?x=1 HTTP/1.0\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n\r\nx'),
        );
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.\d 415 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: string };
      expect(body.error.endsWith(" curl -X POST -H 'content-type: application/json' http://127.0.0.1:4010/__sandbox/reset")).toBe(true);
    } finally {
      await listening.stop();
    }
  });
});

describe("the inspector's files pass without the token; nothing else does", () => {
  // a POST says JSON, or the POST guard answers 415 before the token is looked at
  const send = (method: string, url: string) =>
    guarded.app.inject({ method: method as 'GET', url, headers: method === 'POST' ? { 'content-type': 'application/json' } : {} });
  const refused = (res: { statusCode: number; headers: Record<string, unknown> }) => res.statusCode === 401 && /^CONTROL_TOKEN_REQUIRED /.test(reasonOf(res));

  it('GET and HEAD of /__sandbox/ui, /ui/, a page and an asset, with or without a query, are served without a token', async () => {
    for (const url of ['/__sandbox/ui', '/__sandbox/ui/', '/__sandbox/ui?x=1', '/__sandbox/ui/keys', '/__sandbox/ui/assets/none.js']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await send(method, url);
        expect(refused(res), `${method} ${url}: ${res.statusCode}`).toBe(false);
      }
    }
  });

  it('another method on the same paths, a path that only begins like it, or a query that names it needs the token', async () => {
    for (const [method, url] of [
      ['POST', '/__sandbox/ui/'],
      ['DELETE', '/__sandbox/ui/keys'],
      ['GET', '/__sandbox/uix'],
      ['GET', '/__sandbox/ui-data'],
      ['GET', '/__sandbox/requests?from=/__sandbox/ui/'],
      ['GET', '/__sandbox/workspaces?x=/__sandbox/ui'],
    ] as const) {
      const res = await send(method, url);
      expect(refused(res), `${method} ${url}: ${res.statusCode} ${reasonOf(res)}`).toBe(true);
    }
  });
});
