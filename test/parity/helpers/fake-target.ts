import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox, type Sandbox } from '../../../src/sandbox.ts';
import type { SandboxOptions } from '../../../src/config.ts';

/**
 * The "real API" of the parity tests: a second sandbox, behind a
 * small planting proxy of the test's own. The planting proxy passes each
 * request through, then lets the test change the answer (`plant`), and keeps
 * the exact bytes it sent, so a test can hold the parity proxy to giving the
 * client those bytes.
 */
export interface PlantedAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeTarget {
  sandbox: Sandbox;
  url: string;
  /** what the planting proxy answered, in order */
  sent: PlantedAnswer[];
  /** rewrites the answer to (method, path) before it leaves; return it unchanged to pass */
  plant: ((method: string, path: string, answer: PlantedAnswer) => PlantedAnswer) | null;
  stop(): Promise<void>;
}

export async function fakeTarget(options: SandboxOptions = {}): Promise<FakeTarget> {
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', enforceRateLimits: false, ...options });
  const base = new URL(sandbox.url);
  const fake: FakeTarget = {
    sandbox,
    url: '',
    sent: [],
    plant: null,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await sandbox.stop();
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest(
        { host: base.hostname, port: base.port, method: req.method, path: req.url, headers: { ...req.headers, host: base.host } },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const headers = { ...answer.headers };
            delete headers['transfer-encoding'];
            delete headers.connection;
            delete headers['keep-alive'];
            let planted: PlantedAnswer = { status: answer.statusCode ?? 502, headers, body: Buffer.concat(parts) };
            if (fake.plant) planted = fake.plant(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!, planted);
            planted.headers['content-length'] = String(planted.body.length);
            fake.sent.push(planted);
            res.writeHead(planted.status, planted.headers);
            res.end(planted.body);
          });
        },
      );
      upstream.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** A fetch against a base URL with a key, answering status, headers and the raw body bytes. */
export async function call(
  base: string,
  method: string,
  path: string,
  key: string | null,
  body?: unknown,
): Promise<{ status: number; headers: Headers; bytes: Buffer; json: any }> {
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, json };
}
