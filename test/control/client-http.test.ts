import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient, ControlPlaneError, SandboxNotRunningError } from '../../src/control/client.ts';

/**
 * The control client's own HTTP (src/control/http-send.ts, on node:http):
 * what it sends, the answers it reads, and the one-line reasons it gives when none comes.
 */
let server: Server;
let url = '';
const seen: { method: string; path: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
      if (req.url === '/__sandbox/clock') return; // never answers
      if (req.url!.startsWith('/__sandbox/faults'))
        return void res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'Invalid body', details: [{ message: 'status: too big' }] }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { café: 'ü'.repeat(70_000) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the control client over HTTP', () => {
  it('sends JSON with its length and the token, and reads a long answer of several chunks whole', async () => {
    const client = new ControlClient({ url, token: 'secret-token' });
    const answer = (await client.createWorkspace({ name: 'Wörkshop' })) as unknown as { café: string };
    expect(answer.café).toBe('ü'.repeat(70_000));
    const sent = seen.at(-1)!;
    const body = JSON.stringify({ name: 'Wörkshop' });
    expect(sent).toMatchObject({ method: 'POST', path: '/__sandbox/workspaces', body });
    expect(sent.headers).toMatchObject({
      'content-type': 'application/json',
      'x-sandbox-token': 'secret-token',
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it('turns an error answer into a ControlPlaneError with its details', async () => {
    const err = await new ControlClient({ url }).clearFaults().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ControlPlaneError);
    expect((err as ControlPlaneError).status).toBe(400);
    expect((err as Error).message).toBe('Invalid body: status: too big');
  });

  it('says "timed out" when the sandbox does not answer in time, and "connection refused" when nothing listens', async () => {
    const slow = await new ControlClient({ url, timeoutMs: 300 }).clock().catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(SandboxNotRunningError);
    expect((slow as Error).message).toBe(`no sandbox is running at ${url} (timed out)`);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await new ControlClient({ url: `http://127.0.0.1:${port}` }).workspaces().catch((e: unknown) => e);
    expect((refused as Error).message).toBe(`no sandbox is running at http://127.0.0.1:${port} (connection refused)`);
  });
});
