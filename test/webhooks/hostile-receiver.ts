import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour = 'hang' | 'drip' | 'huge' | 'reset';

export interface HostileReceiver {
  url: string;
  /** requests that have arrived */
  arrived: number;
  /** requests whose connection is still open now, and the most there ever were */
  open: number;
  maxOpen: number;
  /** bytes of the huge body actually written before the sender hung up */
  bytesSent: number;
  /** resolves once `n` requests have arrived */
  arrivedAt(n: number): Promise<void>;
  close(): Promise<void>;
}

const HUGE = 50 * 1024 * 1024;

/**
 * A receiver that misbehaves in one way: never answers,
 * answers one byte at a time, sends a 50 MB body, or closes the socket in the
 * middle of its response.
 */
export async function startHostileReceiver(behaviour: Behaviour): Promise<HostileReceiver> {
  const timers = new Set<NodeJS.Timeout>();
  let waiters: { n: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    state.arrived++;
    state.open++;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    res.on('close', () => state.open--);
    waiters = waiters.filter((w) => {
      if (state.arrived < w.n) return true;
      w.resolve();
      return false;
    });
    req.resume();
    req.on('end', () => misbehave(behaviour, res));
  });
  const misbehave = (kind: Behaviour, res: ServerResponse) => {
    if (kind === 'hang') return;
    if (kind === 'drip') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 50);
      timers.add(timer);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (kind === 'reset') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    res.writeHead(200, { 'content-length': String(HUGE) });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (state.bytesSent < HUGE && !res.destroyed) {
        state.bytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: HostileReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    arrived: 0,
    open: 0,
    maxOpen: 0,
    bytesSent: 0,
    arrivedAt: (n) => (state.arrived >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise((resolve) => {
        for (const timer of timers) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}
