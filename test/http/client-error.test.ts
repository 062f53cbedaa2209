import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';

/**
 * What Node's HTTP parser refuses is answered as the sandbox answers any 400, not with Fastify's
 * default `{"error":"Bad Request","message":"Client Error","statusCode":400}` without X-Request-ID
 * or X-RateLimit-*. Sent over a raw socket: no HTTP client would send these bytes.
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
});
afterAll(async () => {
  await sandbox.stop();
});

/** Writes `bytes` and resolves with everything the server sends until it closes the connection. */
function exchange(bytes: string): Promise<string> {
  const { hostname, port } = new URL(sandbox.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function parse(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { statusLine, headers, body: JSON.parse(body) as Record<string, unknown> };
}

describe('a request Node cannot parse', () => {
  it('a garbage request line gets a proper 400 with the documented error shape and headers', async () => {
    const res = parse(await exchange('GARBAGE\r\n\r\n'));
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(res.body).toEqual({ error: expect.stringMatching(/^Malformed HTTP request: /), code: 'MALFORMED_REQUEST' });
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers['x-ratelimit-limit']).toBe('100');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeGreaterThan(0);
    expect(res.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(res.body)));
    expect(res.headers['x-sandbox-reason']).toMatch(/^MALFORMED_REQUEST /);
  });

  it('a header without a colon, and headers over 16 KiB, too', async () => {
    const bad = parse(await exchange('GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n'));
    expect(bad.body.code).toBe('MALFORMED_REQUEST');
    expect(bad.headers['x-request-id']).toBeTruthy();
    const big = parse(await exchange(`GET /v1/products HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(big.statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(big.body.code).toBe('HEADERS_TOO_LARGE');
    expect(big.headers['x-ratelimit-limit']).toBe('100');
  });

  it('the sandbox keeps serving afterwards', async () => {
    await exchange('GARBAGE\r\n\r\n');
    expect((await fetch(`${sandbox.url}/__sandbox/health`)).status).toBe(200);
  });
});
