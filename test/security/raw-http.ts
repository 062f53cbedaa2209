import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/**
 * Requests over a real socket with the headers exactly as written, Host
 * included (node:http sends a `host` header given here instead of its own),
 * for the attack suite (test/security/).
 */
export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function raw(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { connection: 'close', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > 4096) res.destroy(); // an SSE stream that answered would never end
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An HTTP/1.0 request with no Host header at all (node:http always sends one); resolves with the status line's code. */
export function withoutHost(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`GET ${path} HTTP/1.0\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.\d (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}
