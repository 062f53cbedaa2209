import { createServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { call } from './helpers/fake-target.ts';
import { stubRecorder } from './helpers/stub-recorder.ts';

/** The parity proxy's safety: a bad target is the client's 502/504 with a reason, never a crash; no open proxy. */
const started: Sandbox[] = [];
const servers: (Server | TcpServer)[] = [];
const sockets = new WeakMap<Server | TcpServer, Socket[]>();
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
  for (const server of servers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve));
    if ('closeAllConnections' in server) server.closeAllConnections();
    else for (const socket of sockets.get(server) ?? []) socket.destroy();
    await closed;
  }
});

async function proxyTo(target: string, extra: { timeoutMs?: number } = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target, ...extra } });
  sandbox.context.parity.recorder = stubRecorder();
  started.push(sandbox);
  return sandbox;
}

async function listening<S extends Server | TcpServer>(server: S): Promise<string> {
  servers.push(server);
  server.on('connection', (socket: Socket) => sockets.set(server, [...(sockets.get(server) ?? []), socket]));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: one a server held, then closed. */
async function freePort(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const reasonCode = (headers: Headers) => headers.get('x-sandbox-reason')?.split(' ')[0];

describe('a target that is down, slow or answers garbage', () => {
  it('down: 502 TARGET_UNREACHABLE with a reason, and the proxy keeps serving', async () => {
    const sandbox = await proxyTo(await freePort());
    const res = await call(sandbox.proxy!.url, 'GET', '/v1/products', KEYS.sandboxFull);
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ code: 'TARGET_UNREACHABLE' });
    expect(reasonCode(res.headers)).toBe('TARGET_UNREACHABLE');
    expect(res.headers.get('x-sandbox-reason')).toMatch(/ECONNREFUSED/);
    expect((await call(sandbox.proxy!.url, 'GET', '/v1/products', KEYS.sandboxFull)).status).toBe(502);
  });

  it('slow: 504 TARGET_TIMEOUT after the target timeout', async () => {
    const slow = await listening(createServer(() => undefined)); // never answers
    const sandbox = await proxyTo(slow, { timeoutMs: 200 });
    const res = await call(sandbox.proxy!.url, 'GET', '/v1/products', KEYS.sandboxFull);
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ code: 'TARGET_TIMEOUT' });
    expect(res.headers.get('x-sandbox-reason')).toMatch(/^TARGET_TIMEOUT .*200 ms/);
  });

  it('garbage: 502 TARGET_BAD_ANSWER', async () => {
    const garbage = await listening(createTcpServer((socket) => socket.end('this is not http\r\n\r\n')));
    const sandbox = await proxyTo(garbage);
    const res = await call(sandbox.proxy!.url, 'GET', '/v1/products', KEYS.sandboxFull);
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ code: 'TARGET_BAD_ANSWER' });
    expect(reasonCode(res.headers)).toBe('TARGET_BAD_ANSWER');
  });
});

describe('no open proxy', () => {
  it('refuses an absolute request target, and a Host that is not loopback', async () => {
    const seen: string[] = [];
    const target = await listening(
      createServer((req, res) => {
        seen.push(req.url ?? '');
        res.end('{}');
      }),
    );
    const sandbox = await proxyTo(target);
    const { port } = new URL(sandbox.proxy!.url);
    const raw = (path: string, host: string) =>
      new Promise<{ status: number; reason: string | undefined }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, reason: res.headers['x-sandbox-reason'] as string | undefined });
        });
        req.on('error', reject);
        req.end();
      });
    expect(await raw('http://example.com/v1/products', `127.0.0.1:${port}`)).toMatchObject({
      status: 400,
      reason: expect.stringMatching(/^MALFORMED_URL .*not an open proxy/),
    });
    expect(await raw('/v1/products', 'attacker.example')).toMatchObject({ status: 403, reason: expect.stringMatching(/^HOST_NOT_ALLOWED/) });
    expect(seen).toEqual([]);
    // what is not /v1 is the sandbox's own: its control plane answers on the proxy's port
    const health = await call(sandbox.proxy!.url, 'GET', '/__sandbox/health', null);
    expect(health.status).toBe(200);
    expect(seen).toEqual([]);
  });

  it('refuses to start against the sandbox itself, a target with credentials, or another scheme', async () => {
    await expect(createSandbox({ port: 0, storage: 'memory', proxy: { target: 'https://user:secret@api.example.com' } })).rejects.toThrow(/credentials/);
    await expect(createSandbox({ port: 0, storage: 'memory', proxy: { target: 'ftp://api.example.com' } })).rejects.toThrow(/http/);
    // the proxy's own port as its target: a loop, refused by the self-request guard
    const port = Number(new URL(await freePort()).port);
    await expect(createSandbox({ port: 0, storage: 'memory', proxy: { target: `http://localhost:${port}`, port } })).rejects.toThrow(
      /is this sandbox or its proxy/,
    );
  });
});
