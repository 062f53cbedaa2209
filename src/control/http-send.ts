import { request as httpRequest, type IncomingMessage } from 'node:http';

/**
 * One request of the control client with node:http (node:https for an https URL), not undici:
 * a CLI command is one or two requests, and loading undici (the package, or Node's own behind
 * fetch: either compiles all of it, node:http2 and node:tls included) takes more CPU than the rest
 * of the command, about 110 of `sandbox fault clear`'s 200 ms (and the test suite runs the CLI
 * hundreds of times). An idle keep-alive socket does not hold the process open (the agent unrefs it).
 */
export interface SendInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** the control client always gives one (its timeout); a caller without a deadline may not */
  signal?: AbortSignal;
}

/** The answer's status and text (or bytes); rejects when no answer comes (its error says why, see reason() in client.ts). */
export async function sendText(url: URL, init: SendInit): Promise<{ status: number; text: () => Promise<string>; bytes: () => Promise<Buffer> }> {
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const headers = init.body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
    const req = request(url, { method: init.method, headers, ...(init.signal ? { signal: init.signal } : {}) }, resolve);
    req.once('error', reject);
    req.end(init.body);
  });
  return {
    status: res.statusCode ?? 0,
    text: async () => {
      res.setEncoding('utf8');
      let text = '';
      for await (const chunk of res) text += chunk as string;
      return text;
    },
    bytes: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
  };
}
