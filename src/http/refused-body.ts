import type { FastifyRequest } from 'fastify';
import { BODY_EXCERPT_BYTES } from './request-capture.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the text of the body of a request refused before its body was parsed (a 401), for its capture */
    refusedBody: string | undefined;
  }
}

/** Bodies larger than this are not read for a refusal's capture: the answer does not wait for them. */
const READ_AT_MOST = 64 * 1024;

/**
 * A request refused by authentication is answered before its body is parsed, so its capture would
 * have no body and "Copy as curl" could not reproduce it. Before the refusal goes out, a
 * body announced by a Content-Length of at most 64 KB is read (its first 4 KB kept); then `next`.
 * Only refusals pay this; the hot path never comes here.
 */
export function readRefusedBody(request: FastifyRequest, next: () => void): void {
  const length = Number(request.headers['content-length']);
  const raw = request.raw;
  if (!Number.isInteger(length) || length <= 0 || length > READ_AT_MOST || raw.readableEnded) return next();
  const chunks: Buffer[] = [];
  let kept = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    raw.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
    request.refusedBody = Buffer.concat(chunks).toString('utf8');
    next();
  };
  const onData = (chunk: Buffer) => {
    if (kept >= BODY_EXCERPT_BYTES) return;
    chunks.push(chunk.subarray(0, BODY_EXCERPT_BYTES - kept));
    kept += Math.min(chunk.length, BODY_EXCERPT_BYTES - kept);
  };
  raw.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
}
