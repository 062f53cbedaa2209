/**
 * The form writers' HTTP client in watch-writes (formWriters(..., 'http')): the same requests as
 * fetch() (keep-alive connections, JSON bodies), over node:http. watch-writes waits for counts of
 * acknowledged writes (300 before the change, 300 after it was handled) while eight writers post,
 * so the client's CPU per request is paid thousands of times a file: fetch (undici and its web
 * streams) spent 1.0 to 1.4 ms of CPU on each POST /v1/forms, node:http 0.2 to 0.3 ms, measured
 * side by side against one sandbox. A kill -9 shows the same way: the promise rejects (a refused
 * or reset connection), and the write was never acknowledged.
 *
 * Not for writers that run for a time rather than a count (kill9, the ledger, kill9-state's seeded
 * windows, stale-save's wait for a compaction, at most 2 s under writes): a cheaper client makes
 * more writes in the same time, each paid by the sandbox, not less CPU (stale-save took more); and
 * the ledger's seats are budgeted for fetch's pace (at node:http's, 3.3 times the requests, a
 * departure sold out and the run failed).
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true });

export interface Answer {
  status: number;
  ok: boolean;
  /** a response header, lower-case name, as Headers.get() gives it */
  header(name: string): string | null;
  text: string;
  json<T = unknown>(): Promise<T>;
}

/** `method url` with `headers` and a JSON `body` (sent as given when a string); resolves once the whole answer is read. */
export function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
  const target = new URL(url);
  const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        agent,
        headers: data === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(data)) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('the answer was cut')));
        res.on('end', () => {
          if (!res.complete) return reject(new Error('the answer was cut'));
          const status = res.statusCode!;
          resolve({
            status,
            ok: status >= 200 && status < 300,
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
            },
            text,
            json: async <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
