import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  url: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** what the next requests are answered with (default 200) */
  respond(reply: Reply | ((n: number) => Reply)): void;
  /** resolves with the next request that arrives */
  next(): Promise<Received>;
  close(): Promise<void>;
}

/** A real local HTTP receiver on 127.0.0.1, port 0. */
export async function startReceiver(path = '/webhooks'): Promise<Receiver> {
  const received: Received[] = [];
  let reply: (n: number) => Reply = () => ({ status: 200, body: 'ok' });
  let waiters: ((r: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '' };
      received.push(entry);
      const r = reply(received.length);
      res.writeHead(r.status, r.headers ?? {});
      res.end(r.body ?? '');
      const ready = waiters;
      waiters = [];
      for (const w of ready) w(entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respond: (r) => (reply = typeof r === 'function' ? r : () => r),
    next: () => new Promise((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
