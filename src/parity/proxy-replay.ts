import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Answer } from './types.ts';
import { forwardedHeaders, type TargetAnswer } from './proxy-forward.ts';
import type { IdPairs } from './proxy-ids.ts';
import { isSecretName, mapQueryPairs } from '../core/redact.ts';

/**
 * The sandbox side of the parity proxy (docs/parity.md): the client's request made
 * again, in process (`app.inject`), in the proxy's workspace. What changes is
 * only what must: the workspace's key in place of the client's, and the
 * target's ids that were paired with the sandbox's. The client's answer is
 * already on its way when this runs.
 */
export interface ClientRequest {
  method: string;
  /** the path as the client sent it, without the query */
  path: string;
  /** without `?` */
  query: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export async function replayInSandbox(app: FastifyInstance, request: ClientRequest, workspaceKey: string, pairs: IdPairs): Promise<Answer> {
  const headers = forwardedHeaders(request.headers);
  delete headers['content-length']; // recomputed for the rewritten body
  delete headers['accept-encoding']; // the comparison reads the body
  delete headers.cookie; // the target's business only: never kept in the sandbox's request log
  swapCredentialHeaders(headers, workspaceKey);
  const query = pairs.mapQuery(sandboxCredentialsInQuery(request.query, workspaceKey));
  const res = await app.inject({
    method: request.method as 'GET',
    url: `${pairs.mapPath(request.path)}${query ? `?${query}` : ''}`,
    headers,
    ...(request.body.length > 0 ? { payload: mappedBody(request, pairs) } : {}),
  });
  return { status: res.statusCode, headers: flatHeaders(res.headers), body: parseJson(res.rawPayload) };
}

/**
 * The client's credential, wherever it put it, becomes the workspace's key in the same place and
 * form: the Authorization scheme as written, an `X-Api-Key` header, an `api_key` query parameter.
 * So the sandbox answers the same form of request (a key in a header it does not read is a 401 on
 * both sides), and the client's key never reaches the sandbox, its request log or its stream. A
 * client without a key gets the sandbox's 401 too: swapping in ours would hide the difference.
 */
function swapCredentialHeaders(headers: Record<string, string | string[]>, workspaceKey: string): void {
  for (const name of Object.keys(headers)) {
    if (!isSecretName(name)) continue;
    const value = String(headers[name]).trim();
    const space = value.indexOf(' ');
    headers[name] = name === 'authorization' && space > 0 ? `${value.slice(0, space)} ${workspaceKey}` : workspaceKey;
  }
}

/** A query string with the value of every credential parameter (`api_key`, `access_token`, `key`, ...) the workspace's key. */
export function sandboxCredentialsInQuery(query: string, workspaceKey: string): string {
  return mapQueryPairs(query, (name, value, rawName) => (value !== null && isSecretName(name) ? `${rawName}=${encodeURIComponent(workspaceKey)}` : null));
}

/** A JSON body with its paired ids replaced; any other body exactly as sent. */
function mappedBody(request: ClientRequest, pairs: IdPairs): Buffer | string {
  if (pairs.size === 0) return request.body;
  const parsed = parseJson(request.body);
  return parsed === undefined ? request.body : JSON.stringify(pairs.mapBody(parsed));
}

/** Why the target's answer was not read: over the max body as streamed, or once inflated. */
export interface TooLarge {
  /** the bytes streamed, or the body's bytes on the wire when it inflates past the limit */
  bytes: number;
  /** false when the stream was cut before its end */
  complete: boolean;
  /** set when the body was small on the wire and inflates past the limit: its Content-Encoding */
  inflated?: string;
}

/**
 * The target's answer as the recorder reads it: headers flat, the body decoded and parsed; no
 * body, and `tooLarge`, when it was over `maxBodyBytes` as sent or once inflated (a gzip bomb is
 * never inflated past the limit).
 */
export function targetAnswer(answer: TargetAnswer, maxBodyBytes?: number): Answer & { tooLarge?: TooLarge } {
  const headers = flatHeaders(answer.headers);
  if (answer.tooLarge) return { status: answer.status, headers, body: undefined, tooLarge: answer.tooLarge };
  const body = decoded(answer, maxBodyBytes);
  if (body === TOO_LARGE)
    return {
      status: answer.status,
      headers,
      body: undefined,
      tooLarge: { bytes: answer.body.length, complete: true, inflated: headers['content-encoding']!.trim().toLowerCase() },
    };
  return { status: answer.status, headers, body: parseJson(body) };
}

const TOO_LARGE = Symbol('too large');

function decoded(answer: TargetAnswer, maxBodyBytes?: number): Buffer | typeof TOO_LARGE {
  const encoding = String(answer.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  // zlib stops at maxOutputLength with ERR_BUFFER_TOO_LARGE: never more than the limit in memory
  const bound = maxBodyBytes === undefined ? {} : { maxOutputLength: maxBodyBytes };
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(answer.body, bound);
    if (encoding === 'br') return brotliDecompressSync(answer.body, bound);
    if (encoding === 'deflate') return inflateSync(answer.body, bound);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') return TOO_LARGE;
    return Buffer.alloc(0); // not what it says: read as no body
  }
  return answer.body;
}

export function flatHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

export function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
