import { createHash, randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { call } from './helpers/fake-target.ts';
import { stubRecorder } from './helpers/stub-recorder.ts';

/**
 * What a hostile target or client can make the parity proxy do (docs/parity.md, "Bounds on what a
 * target sends"): a deadline for the whole answer, a bound on what is held (a larger answer is
 * streamed untouched and reported as too large to compare), bounded decompression, and paths
 * that never leave /v1 on the target.
 */
const started: Sandbox[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.stop();
  for (const server of servers.splice(0)) {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
});

async function proxyTo(target: string, extra: { timeoutMs?: number; maxBodyBytes?: number } = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target, ...extra } });
  started.push(sandbox);
  return sandbox;
}

async function target(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A GET with node:http: the path exactly as written (fetch would resolve its dots), the body hashed as it comes, never held. */
function rawGet(base: string, path: string): Promise<{ status: number; reason: string | undefined; bytes: number; sha256: string; cut: boolean }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${KEYS.sandboxFull}` } }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      const done = (cut: boolean) =>
        resolve({ status: res.statusCode!, reason: res.headers['x-sandbox-reason'] as string | undefined, bytes, sha256: hash.digest('hex'), cut });
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
      });
      res.on('error', () => undefined); // a cut connection: `complete` says so below
      res.on('close', () => done(!res.complete));
    });
    req.on('error', reject);
    req.end();
  });
}

const MIB = 1024 * 1024;

describe('--target-timeout bounds the whole answer, by wall time', () => {
  it('a target that dribbles its body a byte every 300 ms is a 504 at the deadline, long before its body ends', async () => {
    const LENGTH = 12; // 3.6 s of dribbling
    let written = 0;
    const url = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LENGTH) });
      const tick = setInterval(() => {
        res.write(' ');
        if (++written === LENGTH) {
          clearInterval(tick);
          res.end();
        }
      }, 300);
      res.on('close', () => clearInterval(tick));
    });
    const sandbox = await proxyTo(url, { timeoutMs: 1000 });
    sandbox.context.parity.recorder = stubRecorder();
    const res = await call(sandbox.proxy!.url, 'GET', '/v1/products', KEYS.sandboxFull);
    expect(res.status).toBe(504);
    expect(res.json).toMatchObject({ code: 'TARGET_TIMEOUT' });
    expect(res.headers.get('x-sandbox-reason')).toMatch(/^TARGET_TIMEOUT .*whole answer within 1000 ms .*headers and the whole body must come within it/);
    expect(written).toBeLessThan(LENGTH); // the target had not finished: undici's idle timer alone would have waited for it
  });
});

describe('--target-max-body', () => {
  it('streams a flood larger than the limit to the client byte for byte, holds little of it, and reports it too large to compare', async () => {
    const SIZE = 192 * MIB;
    // 16 distinct blocks in turn: a chunk lost, repeated or out of order changes the hash, and the
    // target allocates nothing per chunk, so that the memory that grows is the proxy's
    const blocks = Array.from({ length: 16 }, () => randomBytes(64 * 1024));
    const sent = createHash('sha256');
    const url = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_flood' });
      let left = SIZE / (64 * 1024);
      // with backpressure, as a well-behaved server: what the proxy holds is the proxy's doing
      const pump = () => {
        while (left > 0) {
          const chunk = blocks[left % blocks.length]!;
          sent.update(chunk);
          left--;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const sandbox = await proxyTo(url, { maxBodyBytes: MIB });
    const before = process.memoryUsage();
    let peak = { rss: 0, arrayBuffers: 0 };
    const sample = setInterval(() => {
      const now = process.memoryUsage();
      peak = { rss: Math.max(peak.rss, now.rss - before.rss), arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers - before.arrayBuffers) };
    }, 10);
    const res = await rawGet(sandbox.proxy!.url, '/v1/products');
    clearInterval(sample);
    expect(res).toMatchObject({ status: 200, bytes: SIZE, cut: false });
    expect(res.sha256).toBe(sent.digest('hex'));
    // streamed, the peaks measured about 34 MB of buffers and 80 MB of RSS (the target and this
    // client share the process); held whole, as before, 230 to 410 MB of buffers and 590 MB of RSS
    expect(peak.arrayBuffers).toBeLessThan(SIZE / 2);
    expect(peak.rss).toBeLessThan(SIZE * 0.75);

    await sandbox.proxy!.settled();
    const recorder = sandbox.context.parity.recorder!;
    const report = recorder.report();
    expect(report).toMatchObject({ requests: 1, compared: 0, differences: [] });
    expect(report.notCompared).toEqual([
      {
        reason: 'too-large',
        method: 'GET',
        path: '/v1/products',
        count: 1,
        requestId: 'req_flood',
        bytes: SIZE,
        detail: `too large to compare: ${SIZE} bytes, over --target-max-body ${MIB}`,
      },
    ]);
    expect(recorder.example('req_flood')).toBeUndefined();
  });

  it('the deadline still runs while an answer streams: past it the client connection is cut, and the report says so', async () => {
    const url = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * MIB), 'x-request-id': 'req_cut' });
      res.write(Buffer.alloc(2 * MIB, ' ')); // over the limit at once: streaming
      const tick = setInterval(() => res.write(' '), 100); // then never the rest
      res.on('close', () => clearInterval(tick));
    });
    const sandbox = await proxyTo(url, { maxBodyBytes: MIB, timeoutMs: 1000 });
    const res = await rawGet(sandbox.proxy!.url, '/v1/products');
    expect(res.status).toBe(200); // the headers were out before the deadline
    expect(res.cut).toBe(true);
    expect(res.bytes).toBeLessThan(3 * MIB);
    await sandbox.proxy!.settled();
    expect(sandbox.context.parity.recorder!.report().notCompared).toEqual([
      expect.objectContaining({
        reason: 'too-large',
        requestId: 'req_cut',
        detail: expect.stringMatching(/^too large to compare: \d+ bytes streamed before the answer was cut off/),
      }),
    ]);
  });

  it('an answer within the limit is held and compared as before', async () => {
    const url = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_small' });
      res.end(JSON.stringify({ data: [], hasMore: false }));
    });
    const sandbox = await proxyTo(url, { maxBodyBytes: MIB });
    const recorder = stubRecorder();
    sandbox.context.parity.recorder = recorder;
    expect((await rawGet(sandbox.proxy!.url, '/v1/products')).status).toBe(200);
    await sandbox.proxy!.settled();
    expect(recorder.exchanges).toHaveLength(1);
    expect(recorder.exchanges[0]!.notCompared).toBeUndefined();
    expect(recorder.exchanges[0]!.target.body).toEqual({ data: [], hasMore: false });
  });

  it('a gzip answer that inflates past the limit is too large to compare: never inflated whole, no crash', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * MIB, ' ')); // about 64 KB on the wire
    const url = await target((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length), 'x-request-id': 'req_bomb' });
      res.end(bomb);
    });
    const sandbox = await proxyTo(url, { maxBodyBytes: MIB });
    const res = await rawGet(sandbox.proxy!.url, '/v1/products');
    // the client gets the bytes as sent, still compressed: the proxy never changes what it sees
    expect(res).toMatchObject({ status: 200, bytes: bomb.length, sha256: createHash('sha256').update(bomb).digest('hex') });
    await sandbox.proxy!.settled();
    const report = sandbox.context.parity.recorder!.report();
    expect(report.compared).toBe(0);
    expect(report.notCompared).toEqual([
      {
        reason: 'too-large',
        method: 'GET',
        path: '/v1/products',
        count: 1,
        requestId: 'req_bomb',
        bytes: bomb.length,
        detail: `too large to compare: its gzip body of ${bomb.length} bytes inflates past --target-max-body ${MIB}`,
      },
    ]);
    // and it keeps serving
    expect((await call(sandbox.proxy!.url, 'GET', '/__sandbox/health', null)).status).toBe(200);
  });
});

describe('the report of requests not compared', () => {
  it("is one line per (reason, method, path), the largest size kept, bounded: past the bound a request counts on its reason's line for the other operations", async () => {
    const { createParityRecorder } = await import('../../src/parity/report.ts');
    const { NOT_COMPARED_LINES } = await import('../../src/parity/not-compared.ts');
    const recorder = createParityRecorder({ routes: { routes: [], document: () => '{}' } });
    const answer = { status: 200, headers: {}, body: undefined };
    const big = (urlPath: string, requestId: string, bytes: number) =>
      recorder.record({
        requestId,
        method: 'get',
        urlPath,
        target: answer,
        sandbox: answer,
        learned: false,
        unknownIds: [],
        notCompared: { reason: 'too-large', bytes, detail: `${bytes} bytes` },
      });
    big('/v1/exports', 'req_1', 5 * MIB);
    big('/v1/exports', 'req_2', 7 * MIB);
    big('/v1/exports', 'req_3', 6 * MIB);
    expect(recorder.report().notCompared).toEqual([
      { reason: 'too-large', method: 'GET', path: '/v1/exports', count: 3, requestId: 'req_1', bytes: 7 * MIB, detail: `${7 * MIB} bytes` },
    ]);
    const word = (n: number) => n.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]!); // no digit: not read as an id
    for (let i = 0; i < NOT_COMPARED_LINES + 1; i++) big(`/v1/${word(i)}`, `req_w${i}`, MIB);
    const report = recorder.report();
    expect(report.notCompared).toHaveLength(NOT_COMPARED_LINES + 1);
    expect(report).toMatchObject({ requests: NOT_COMPARED_LINES + 4, compared: 0, omitted: 0 });
    // the two requests past the bound, on one line: every request is still counted
    expect(report.notCompared!.find((n) => n.path === '*')).toMatchObject({
      reason: 'too-large',
      method: '*',
      count: 2,
      requestId: `req_w${NOT_COMPARED_LINES - 1}`,
      bytes: MIB,
      detail: `requests of operations past the report's ${NOT_COMPARED_LINES} lines, counted together; the first: ${MIB} bytes`,
    });
    expect(report.notCompared!.reduce((sum, n) => sum + n.count, 0)).toBe(report.requests);
    recorder.clear();
    expect(recorder.report().notCompared).toEqual([]);
  });
});

describe('paths never leave /v1 on the target', () => {
  const seenBy = async () => {
    const seen: string[] = [];
    const url = await target((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":[]}');
    });
    return { seen, url };
  };

  it('refuses with a 400 and a reason a path that climbs out of /v1, raw or percent-encoded, or hides a slash', async () => {
    const { seen, url } = await seenBy();
    const sandbox = await proxyTo(`${url}/api`);
    sandbox.context.parity.recorder = stubRecorder();
    for (const path of ['/v1/../../steal', '/v1/%2e%2e/%2e%2e/steal', '/v1/products/%2E%2E/../x', '/v1/..', '/v1/products/.%2e/.%2E/']) {
      const res = await rawGet(sandbox.proxy!.url, path);
      expect(res.status, path).toBe(400);
      expect(res.reason, path).toMatch(/^PATH_OUTSIDE_API the path leaves \/v1 once its \. and \.\. segments are resolved/);
    }
    for (const path of ['/v1/a%2f..%2f..%2fsteal', '/v1/a%5C..%5c..%5csteal', '/v1/a\\..\\..\\steal']) {
      const res = await rawGet(sandbox.proxy!.url, path);
      expect(res.status, path).toBe(400);
      expect(res.reason, path).toMatch(/^PATH_OUTSIDE_API the path hides a \/ or \\ inside a segment \(%2F, %5C, or a raw \\\)/);
    }
    expect(seen).toEqual([]);
  });

  it('forwards the normalized path after the base path, the query untouched, and replays that same path', async () => {
    const { seen, url } = await seenBy();
    const sandbox = await proxyTo(`${url}/api`);
    const recorder = stubRecorder();
    sandbox.context.parity.recorder = recorder;
    expect((await rawGet(sandbox.proxy!.url, '/v1/products/./prod_x/../prod_y')).status).toBe(200);
    expect((await rawGet(sandbox.proxy!.url, '/v1/products/%2e/x?next=../a%2f..&dots=%2E%2E')).status).toBe(200);
    expect((await rawGet(sandbox.proxy!.url, '/v1/products/x/..')).status).toBe(200);
    expect(seen).toEqual(['/api/v1/products/prod_y', '/api/v1/products/x?next=../a%2f..&dots=%2E%2E', '/api/v1/products/']);
    await sandbox.proxy!.settled();
    expect(recorder.exchanges.map((e) => e.urlPath)).toEqual(['/v1/products/prod_y', '/v1/products/x', '/v1/products/']);
  });

  it('apiPath: dot segments resolved in any case, the query kept as it is', async () => {
    const { apiPath } = await import('../../src/parity/proxy-path.ts');
    expect(apiPath('/v1/products')).toEqual({ path: '/v1/products', query: '' });
    expect(apiPath('/v1/a/%2E/b/%2e%2E/c?x=/../')).toEqual({ path: '/v1/a/c', query: '?x=/../' });
    expect(apiPath('/v1/products/a..b/.well')).toEqual({ path: '/v1/products/a..b/.well', query: '' });
    expect(apiPath('/v1/../v1/products')).toEqual({ path: '/v1/products', query: '' });
    expect(apiPath('/v1/../v2/products')).toMatchObject({ refused: expect.stringMatching(/it is \/v2\/products/) });
  });
});

describe('--target-max-body on the command line', () => {
  /** The options `sandbox proxy ...argv` parses to with `env` set, without running it. */
  async function parsed(argv: string[], env: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const { buildProgram } = await import('../../src/cli/main.ts');
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      const program = buildProgram('proxy');
      let opts: Record<string, unknown> = {};
      program.commands
        .find((c) => c.name() === 'proxy')!
        .action((...args: unknown[]) => {
          opts = (args.at(-1) as Command).opts();
        });
      await program.parseAsync(['node', 'sandbox', 'proxy', '--target', 'https://api.example.com', ...argv]);
      return opts;
    } finally {
      for (const name of Object.keys(env)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  }

  it('takes a size as 10mb, 512kb or bytes, also from SANDBOX_TARGET_MAX_BODY, the flag winning', async () => {
    expect((await parsed(['--target-max-body', '10mb'])).targetMaxBody).toBe(10 * MIB);
    expect((await parsed(['--target-max-body', '512KB'])).targetMaxBody).toBe(512 * 1024);
    expect((await parsed(['--target-max-body', '2097152'])).targetMaxBody).toBe(2 * MIB);
    expect((await parsed([], { SANDBOX_TARGET_MAX_BODY: '3mib' })).targetMaxBody).toBe(3 * MIB);
    expect((await parsed(['--target-max-body', '1mb'], { SANDBOX_TARGET_MAX_BODY: '3mb' })).targetMaxBody).toBe(MIB);
    expect((await parsed([])).targetMaxBody).toBeUndefined(); // runProxy's default: 10 MiB
  });

  it('refuses a value that is not a size, or out of range, in one line', async () => {
    const { runCliInProcess } = await import('../helpers/cli-in-process.ts');
    for (const value of ['lots', '10 parsecs', '100', '2gb']) {
      const r = await runCliInProcess(['proxy', '--target', 'https://api.example.com', '--port', '0', '--target-max-body', value]);
      expect(r.code, value).not.toBe(0);
      expect(r.stderr, value).toBe(
        `sandbox: --target-max-body takes a size from 1kb to 1gb, such as 10mb, 512kb or a number of bytes, not "${value}" (sandbox proxy --help)\n`,
      );
    }
    const env = await runCliInProcess(['proxy', '--target', 'https://api.example.com', '--port', '0'], { SANDBOX_TARGET_MAX_BODY: 'huge' });
    expect(env.code).not.toBe(0);
    expect(env.stderr).toBe(
      'sandbox: SANDBOX_TARGET_MAX_BODY="huge": --target-max-body takes a size from 1kb to 1gb, such as 10mb, 512kb or a number of bytes\n',
    );
  });
});
