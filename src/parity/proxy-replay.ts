import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Answer } from './types.ts';
import { forwardedHeaders, type TargetAnswer } from './proxy-forward.ts';
import type { IdPairs } from './proxy-ids.ts';

/**
 * The sandbox side of the parity proxy (issue 40): the client's request made
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
  // a client without a key gets the sandbox's 401 too: swapping in ours would hide the difference
  if (request.headers.authorization !== undefined) headers.authorization = `Bearer ${workspaceKey}`;
  const query = pairs.mapQuery(request.query);
  const res = await app.inject({
    method: request.method as 'GET',
    url: `${pairs.mapPath(request.path)}${query ? `?${query}` : ''}`,
    headers,
    ...(request.body.length > 0 ? { payload: mappedBody(request, pairs) } : {}),
  });
  return { status: res.statusCode, headers: flatHeaders(res.headers), body: parseJson(res.rawPayload) };
}

/** A JSON body with its paired ids replaced; any other body exactly as sent. */
function mappedBody(request: ClientRequest, pairs: IdPairs): Buffer | string {
  if (pairs.size === 0) return request.body;
  const parsed = parseJson(request.body);
  return parsed === undefined ? request.body : JSON.stringify(pairs.mapBody(parsed));
}

/** The target's answer as the recorder reads it: headers flat, the body decoded and parsed. */
export function targetAnswer(answer: TargetAnswer): Answer {
  return { status: answer.status, headers: flatHeaders(answer.headers), body: parseJson(decoded(answer)) };
}

function decoded(answer: TargetAnswer): Buffer {
  const encoding = String(answer.headers['content-encoding'] ?? '').trim().toLowerCase();
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(answer.body);
    if (encoding === 'br') return brotliDecompressSync(answer.body);
    if (encoding === 'deflate') return inflateSync(answer.body);
  } catch {
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
