import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { apiError, type ApiError } from '../core/errors.ts';

/**
 * The target side of the parity proxy (docs/parity.md): one undici pool to the
 * target's origin, and nothing else. The request goes there as the client sent
 * it (method, path, query, headers, body bytes); only the hop-by-hop headers
 * and Host, which belong to the connection and not to the request, are the
 * proxy's own. A target that is down, slow or answers garbage becomes a
 * 502/504 with a reason, never a throw.
 */

/** Headers of one connection (RFC 9110 7.6.1), never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

export interface TargetAnswer {
  status: number;
  /** as undici gives them: lower-case names, repeated ones as arrays */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /**
   * Set when the body was over --target-max-body: it was streamed to the client and not kept
   * (`body` is empty). `bytes` is what was streamed; `complete` is false when the stream was cut
   * (the deadline passed, the client left, the target failed).
   */
  tooLarge?: { bytes: number; complete: boolean };
}

/** An answer over the max body: the status and headers, the bytes read so far, and the rest to pipe to the client. */
export interface StreamedAnswer {
  status: number;
  headers: TargetAnswer['headers'];
  /** what was read before the limit was passed: a little more than maxBodyBytes at most */
  head: Buffer[];
  /** the rest of the body, paused; the deadline still runs and destroys it with an error when it passes */
  rest: Readable;
}

export interface Forwarder {
  /** the target's origin, e.g. https://api.example.com */
  readonly origin: string;
  /** `pathAndQuery` is the client's normalized /v1 path and its query (./proxy-path.ts) */
  send(method: string, pathAndQuery: string, headers: IncomingHttpHeaders, body: Buffer): Promise<TargetAnswer | StreamedAnswer | ApiError>;
  close(): Promise<void>;
}

export interface ForwarderOptions {
  /** the target's base URL; a path in it (https://host/api) is put before each /v1 path */
  target: URL;
  /** how long the target may take to send its whole answer, headers and body, in ms from when the request is sent */
  timeoutMs: number;
  /** the largest body held whole; past it the answer is a StreamedAnswer */
  maxBodyBytes: number;
  /** undici's connect `lookup`, through which every connection's addresses pass (the self-request guard) */
  lookup?: unknown;
}

/** the code of the proxy's own deadline, which targetError reads as a timeout */
const DEADLINE = 'ESANDBOXTARGETDEADLINE';

export async function createForwarder(options: ForwarderOptions): Promise<Forwarder> {
  const mod = await import('undici');
  const Pool = mod.Pool ?? mod.default.Pool;
  const { target } = options;
  const pool = new Pool(target.origin, {
    connections: 64,
    // undici's timers bound the silence between chunks; the deadline below bounds the whole answer
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    ...(options.lookup ? { connect: { lookup: options.lookup } as Record<string, unknown> } : {}),
  });
  const basePath = target.pathname.replace(/\/+$/, '');
  return {
    origin: target.origin,
    async send(method, pathAndQuery, headers, body) {
      // one deadline for the whole answer, by wall time: a target that dribbles a byte now and
      // then never trips undici's idle timers, and would hold the client as long as it likes
      const deadline = new AbortController();
      const timer = setTimeout(
        () => deadline.abort(Object.assign(new Error(`the target's answer did not end within ${options.timeoutMs} ms`), { code: DEADLINE })),
        options.timeoutMs,
      );
      timer.unref();
      try {
        const answer = await pool.request({
          method: method as 'GET',
          // an origin-form path joined to the pool's origin: no request can name another host
          path: `${basePath}${pathAndQuery}`,
          headers: forwardedHeaders(headers),
          body: body.length > 0 || !['GET', 'HEAD'].includes(method) ? body : null,
          signal: deadline.signal,
        });
        const read = await readUpTo(answer.body, options.maxBodyBytes);
        if (read.ended) {
          clearTimeout(timer);
          return { status: answer.statusCode, headers: answer.headers, body: Buffer.concat(read.chunks) };
        }
        // over the limit: streamed from here, the deadline still running until the rest is done
        answer.body.once('close', () => clearTimeout(timer));
        return { status: answer.statusCode, headers: answer.headers, head: read.chunks, rest: answer.body };
      } catch (err) {
        clearTimeout(timer);
        return targetError(err, target.origin, options.timeoutMs);
      }
    },
    close: () => pool.close().catch(() => undefined),
  };
}

/** The body whole when it ends within `limit` bytes; else what was read (just past the limit), the stream paused. */
function readUpTo(body: Readable, limit: number): Promise<{ chunks: Buffer[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      body.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= limit) return;
      body.pause();
      done();
      // an error before the pipe takes the stream (the deadline) must not be an uncaught one
      body.on('error', () => undefined);
      resolve({ chunks, ended: false });
    };
    const onEnd = () => {
      done();
      resolve({ chunks, ended: true });
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    body.on('data', onData).once('end', onEnd).once('error', onError);
  });
}

/** The client's headers without the connection's own (Host becomes the target's, set by undici). */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const listed = new Set(
    String(headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The target's headers as the client gets them: all but the connection's own. */
export function answerHeaders(headers: TargetAnswer['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || (HOP_BY_HOP.has(name) && name !== 'host')) continue;
    out[name] = value;
  }
  return out;
}

const TIMEOUT_CODES = new Set([DEADLINE, 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);
const GARBAGE_CODES = new Set([
  'HPE_INVALID_CONSTANT',
  'HPE_INVALID_VERSION',
  'HPE_INVALID_STATUS',
  'HPE_INVALID_HEADER_TOKEN',
  'HPE_CR_EXPECTED',
  'HPE_LF_EXPECTED',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
  'HPE_INVALID_CHUNK_SIZE',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** One failure of the target, as the 502 or 504 the client gets, with the reason in X-Sandbox-Reason. */
export function targetError(err: unknown, origin: string, timeoutMs: number): ApiError {
  const code = errorCode(err);
  if (code && TIMEOUT_CODES.has(code)) {
    return apiError(504, 'TARGET_TIMEOUT', 'Gateway timeout: the target did not answer in time').because(
      'TARGET_TIMEOUT',
      `${origin} did not send its whole answer within ${timeoutMs} ms (--target-timeout: the headers and the whole body must come within it, by wall time); the request may or may not have been carried out there`,
    );
  }
  const parserError = (err as { name?: unknown } | null)?.name === 'HTTPParserError';
  if (parserError || (code && (GARBAGE_CODES.has(code) || code.startsWith('HPE_')))) {
    return apiError(502, 'TARGET_BAD_ANSWER', 'Bad gateway: the target did not answer HTTP').because(
      'TARGET_BAD_ANSWER',
      `${origin} answered something that is not an HTTP response (${code ?? (err as Error).message.split('\n')[0]}); check that --target is the API's base URL`,
    );
  }
  if (code === 'ESANDBOXSELF') {
    return apiError(502, 'TARGET_UNREACHABLE', 'Bad gateway: the target is this sandbox').because(
      'TARGET_UNREACHABLE',
      `${origin} resolves to this sandbox or its proxy; --target must be the real API, not the sandbox itself`,
    );
  }
  const detail = code ?? (err instanceof Error ? err.message.split('\n')[0] : 'unknown error');
  return apiError(502, 'TARGET_UNREACHABLE', 'Bad gateway: the target could not be reached').because(
    'TARGET_UNREACHABLE',
    `${origin} could not be reached (${detail}); check --target and that the API is up`,
  );
}

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'UND_ERR') return code;
    current = (current as { cause?: unknown }).cause;
  }
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
