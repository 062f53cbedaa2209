import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Transform, pipeline } from 'node:stream';
import { apiError, isApiError, reasonText, type ApiError } from '../core/errors.ts';
import { hostRefusal } from '../core/host-guard.ts';
import { answerHeaders, type Forwarder, type StreamedAnswer, type TargetAnswer } from './proxy-forward.ts';
import { apiPath } from './proxy-path.ts';
import type { ClientRequest } from './proxy-replay.ts';

/**
 * The parity proxy's listening side, plain node:http so that it
 * adds as little as possible to the client's latency. `/v1` goes to the
 * target and its answer back to the client as it came (status, headers,
 * body bytes); then, off the client's path, `afterAnswer` replays it. Every
 * other path is the sandbox's own (its control plane, so `sandbox parity
 * --url <proxy>` reads the report here), handed to its app. Loopback only,
 * with the sandbox's Host rule.
 */
export interface ProxyServerOptions {
  forwarder: Forwarder;
  allowedHosts: readonly string[];
  /** the largest request body forwarded, in bytes */
  bodyLimit: number;
  /** the sandbox's app for every path that is not /v1 */
  sandboxRouting: (req: IncomingMessage, res: ServerResponse) => void;
  afterAnswer: (request: ClientRequest, answer: TargetAnswer) => void;
}

const API_PATH = /^\/v1(?:[/?]|$)/;

export function createProxyServer(options: ProxyServerOptions): Server {
  return createServer((req, res) => {
    handle(req, res, options).catch((err: unknown) => {
      // never a crash: one line in the answer, nothing more
      if (!res.headersSent)
        sendError(
          res,
          apiError(502, 'TARGET_UNREACHABLE', 'Bad gateway').because(
            'TARGET_UNREACHABLE',
            `the proxy failed to forward the request (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
          ),
        );
      else res.destroy();
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, options: ProxyServerOptions): Promise<void> {
  const refused = hostRefusal(req.headers.host, { allowedHosts: options.allowedHosts });
  if (refused)
    return sendError(res, refused.because('HOST_NOT_ALLOWED', 'the proxy answers only a loopback Host, as the sandbox does (--allowed-host adds a name)'));
  const url = req.url ?? '/';
  // origin-form only: an absolute URL (`GET http://elsewhere/`) would make an open proxy
  if (!url.startsWith('/'))
    return sendError(
      res,
      apiError(400, 'MALFORMED_URL', 'The request target must be a path').because(
        'MALFORMED_URL',
        'the proxy forwards only paths under /v1 to its own target; it is not an open proxy',
      ),
    );
  if (!API_PATH.test(url)) return options.sandboxRouting(req, res);
  // what reaches the target, and the replay, is the normalized path: never one that leaves /v1
  const where = apiPath(url);
  if ('refused' in where) {
    req.resume();
    return sendError(res, apiError(400, 'PATH_OUTSIDE_API', 'The path must stay under /v1').because('PATH_OUTSIDE_API', where.refused));
  }
  const body = await readBody(req, options.bodyLimit);
  if (body === null)
    return sendError(
      res,
      apiError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${options.bodyLimit} bytes`).because(
        'PAYLOAD_TOO_LARGE',
        `the proxy forwards bodies up to ${options.bodyLimit} bytes`,
      ),
    );
  const method = req.method ?? 'GET';
  const answer = await options.forwarder.send(method, `${where.path}${where.query}`, req.headers, body);
  if (isApiError(answer)) return sendError(res, answer);
  const request: ClientRequest = { method, path: where.path, query: where.query.slice(1), headers: req.headers, body };
  res.writeHead(answer.status, STATUS_CODES[answer.status] ?? '', answerHeaders(answer.headers));
  if ('rest' in answer) return streamRest(res, answer, request, options);
  res.end(method === 'HEAD' ? undefined : answer.body);
  options.afterAnswer(request, answer);
}

/**
 * An answer over --target-max-body: the client gets it untouched all the same, streamed (what was
 * read, then the rest piped with backpressure, so the proxy never holds much more than the limit).
 * Its headers are out: if the deadline passes now, or the target fails, the only honest answer
 * left is to cut the client's connection, which the pipeline does. The exchange is replayed
 * (the request happened on the target) but not compared: the recorder is told it was too large.
 */
async function streamRest(res: ServerResponse, answer: StreamedAnswer, request: ClientRequest, options: ProxyServerOptions): Promise<void> {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  for (const chunk of answer.head) counted.write(chunk);
  const failed = await new Promise<Error | null | undefined>((resolve) => pipeline(answer.rest, counted, res, resolve));
  options.afterAnswer(request, { status: answer.status, headers: answer.headers, body: Buffer.alloc(0), tooLarge: { bytes, complete: !failed } });
}

/** The whole body, or null past the limit (the rest is not read). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The project's error body, with the reason in X-Sandbox-Reason. */
export function sendError(res: ServerResponse, error: ApiError): void {
  const body = JSON.stringify(error.body);
  res.writeHead(error.statusCode, STATUS_CODES[error.statusCode] ?? '', {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': `proxy_${randomUUID()}`,
    ...error.headers,
    ...(error.reason ? { 'x-sandbox-reason': reasonText(error.reason) } : {}),
  });
  res.end(body);
}
