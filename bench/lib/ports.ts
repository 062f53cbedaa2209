import { createServer } from 'node:net';

export const HOST = '127.0.0.1';

/**
 * A port that is free right now on 127.0.0.1. The startup section needs to know
 * the port before the child prints anything, so it can poll from the moment of
 * spawn; the tiny race (another process taking it) only makes a run fail loudly.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Bench targets are local only: refuse anything but 127.0.0.1 (a child printing another URL is a bug). */
export function assertLocal(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname !== HOST) throw new Error(`refusing non-local bench target ${url}`);
  return parsed.origin;
}
