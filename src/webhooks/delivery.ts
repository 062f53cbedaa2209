import { undiciRequest } from '../core/http-client.ts';

/**
 * One HTTP attempt over undici (API description, "Events"; docs/webhooks.md,
 * "Receiver limits"): a POST of the exact signed bytes, redirects not followed
 * (a 3xx is a failure). A receiver is someone else's code, so nothing it does
 * may hold the sandbox: the whole attempt (connect, headers, body) has one
 * deadline, and at most 64 KiB of the response body is read.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** how much of a response body is read and kept in the delivery log */
export const BODY_EXCERPT_BYTES = 64 * 1024;
export const USER_AGENT = 'travel-commerce-sandbox-webhooks/1 (+https://www.standardwebhooks.com)';

/** The failure reasons recorded as an attempt's `error` (docs/webhooks.md). */
export const ATTEMPT_ERRORS = {
  timeout: 'timeout',
  reset: 'connection reset',
  tooLarge: 'body too large',
  refused: 'connection refused',
} as const;

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

/**
 * Each attempt owns its deadline and its link to the stop signal, and gives
 * both back when it ends: `AbortSignal.timeout` would keep a 10 s timer (and
 * everything the attempt holds) alive after a refused connect, and
 * `AbortSignal.any` over the dispatcher's long-lived stop signal registers
 * every attempt with it, so a burst of failed deliveries grew the process
 * (docs/benchmarks.md, "Memory").
 */
export async function send(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  if (input.signal.aborted) throw new AttemptAborted('sandbox stopping');
  const controller = new AbortController();
  let timedOut = false;
  const stop = () => controller.abort(input.signal.reason);
  input.signal.addEventListener('abort', stop, { once: true });
  const deadline = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The attempt timed out', 'TimeoutError'));
  }, input.timeoutMs);
  const latency = () => Math.round((performance.now() - started) * 100) / 100;
  let response: SendResult['response'] = null;
  try {
    const request = await undiciRequest();
    const res = await request(input.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      signal: controller.signal,
      ...(input.dispatcher ? { dispatcher: input.dispatcher } : {}),
    });
    response = { status: res.statusCode, headers: flatHeaders(res.headers), bodyExcerpt: '' };
    const { text, truncated } = await readCapped(res.body, BODY_EXCERPT_BYTES);
    response.bodyExcerpt = text;
    return { response, latencyMs: latency(), error: truncated ? ATTEMPT_ERRORS.tooLarge : null };
  } catch (err) {
    if (input.signal.aborted) throw new AttemptAborted('sandbox stopping');
    const error = timedOut ? ATTEMPT_ERRORS.timeout : describe(err);
    return { response, latencyMs: latency(), error };
  } finally {
    clearTimeout(deadline);
    input.signal.removeEventListener('abort', stop);
  }
}

/** Reads at most `cap` bytes; leaving the loop early destroys the rest of the stream (and its socket). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }, cap: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > cap) {
      truncated = true;
      break;
    }
  }
  return { text: Buffer.concat(chunks).subarray(0, cap).toString('utf8'), truncated };
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
  if (code === 'ECONNREFUSED') return ATTEMPT_ERRORS.refused;
  if (code === 'ENOTFOUND') return 'host not found';
  // a socket closed mid-response: undici reports "other side closed" or "terminated"
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || e.message === 'terminated') return ATTEMPT_ERRORS.reset;
  return `${code ? `${code}: ` : ''}${e.message ?? e.cause?.message ?? String(err)}`;
}
