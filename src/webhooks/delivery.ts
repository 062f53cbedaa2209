import { undiciRequest } from '../core/http-client.ts';

/**
 * One HTTP attempt over undici (API description, "Events"; docs/webhooks.md):
 * a POST of the exact signed bytes, 15 s overall timeout, redirects not
 * followed (a 3xx is a failure), the response body read only up to an excerpt.
 */
export const DELIVERY_TIMEOUT_MS = 15_000;
export const BODY_EXCERPT_BYTES = 2048;
export const USER_AGENT = 'travel-commerce-sandbox-webhooks/1 (+https://www.standardwebhooks.com)';

export interface SendInput {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** aborted when the sandbox stops; such an attempt is not recorded */
  signal: AbortSignal;
  /** an undici dispatcher to use instead of the global one */
  dispatcher?: import('undici').Dispatcher;
}

export interface SendResult {
  response: { status: number; headers: Record<string, string>; bodyExcerpt: string } | null;
  latencyMs: number;
  error: string | null;
}

export class AttemptAborted extends Error {}

export async function send(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = AbortSignal.any([input.signal, timeout]);
  const latency = () => Math.round((performance.now() - started) * 100) / 100;
  try {
    const request = await undiciRequest();
    const res = await request(input.url, { method: 'POST', headers: input.headers, body: input.body, signal, ...(input.dispatcher ? { dispatcher: input.dispatcher } : {}) });
    const bodyExcerpt = await readExcerpt(res.body);
    return { response: { status: res.statusCode, headers: flatHeaders(res.headers), bodyExcerpt }, latencyMs: latency(), error: null };
  } catch (err) {
    if (input.signal.aborted) throw new AttemptAborted('sandbox stopping');
    const error = timeout.aborted ? `timed out after ${input.timeoutMs / 1000} s` : describe(err);
    return { response: null, latencyMs: latency(), error };
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= BODY_EXCERPT_BYTES) break; // leaving the loop destroys the rest of the stream
  }
  return Buffer.concat(chunks).subarray(0, BODY_EXCERPT_BYTES).toString('utf8');
}

function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ESANDBOXSELF') return e.message ?? e.cause?.message ?? 'refused';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return `${code ? `${code}: ` : ''}${e.message ?? e.cause?.message ?? String(err)}`;
}
