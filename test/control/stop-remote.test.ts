import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { runStop } from '../../src/cli/lifecycle.ts';

/**
 * `sandbox stop` of a sandbox whose process it cannot watch (another machine: a container) waits
 * until the sandbox no longer answers, asking its health over node:http as the control client does
 * (src/control/http-send.ts), not fetch: loading undici for those requests was most of a short
 * command's CPU. A fetch that throws stands for that: the wait must not need it.
 */
let server: Server | undefined;

afterEach(async () => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()));
});

it('stop of a sandbox on another machine asks its health until it stops answering, without fetch', async () => {
  vi.stubGlobal('fetch', () => {
    throw new Error('fetch is not used by `sandbox stop`');
  });
  let healthChecks = 0;
  const stopping = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/__sandbox/stop') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { stopping: true, pid: 1, hostname: 'a-container', stopTimeoutMs: 0 } }));
      return;
    }
    if (req.url === '/__sandbox/health') healthChecks++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { status: 'ok', uptimeMs: 1, now: new Date(0).toISOString() } }));
    // it answers three health checks, then takes no more connections, as a sandbox that stopped
    if (healthChecks === 3) {
      stopping.close();
      stopping.closeAllConnections();
    }
  });
  server = stopping;
  await new Promise<void>((resolve) => stopping.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(stopping.address() as AddressInfo).port}`;
  const out: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });

  await runStop({ url });

  expect(healthChecks).toBe(3);
  expect(out.join('')).toContain(`stopped the sandbox at ${url} (it takes no more connections; its process, 1 on a-container, ends after its flush)`);
}, 30_000);
