import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * A large JSON body kept as bytes, copied into one buffer as its chunks arrive
 * (PUT /__sandbox/state: state-reader.ts). Fastify's `parseAs: 'buffer'` keeps
 * the chunks and joins them at the end: one copy of the whole body (~250 MB)
 * in one go, a 300-400 ms stall of every other request. With a
 * Content-Length the buffer is made once at that size; without one it grows
 * by doubling. Past `bodyLimit` the answer is the usual 413.
 */
export function registerBodyBytesParser(scope: FastifyInstance, bodyLimit: number): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', (request: FastifyRequest, payload, done) => {
    const declared = Number(request.headers['content-length']);
    const known = Number.isInteger(declared) && declared >= 0;
    if (known && declared > bodyLimit) return done(tooLarge(), undefined);
    let buffer = Buffer.allocUnsafe(known ? declared : Math.min(bodyLimit, 64 * 1024));
    let length = 0;
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      payload.removeAllListeners('data');
      payload.resume(); // the rest is read and dropped, so the answer can be sent
      done(err, undefined);
    };
    payload.on('data', (chunk: Buffer) => {
      if (failed) return;
      if (length + chunk.length > bodyLimit) return fail(tooLarge());
      if (length + chunk.length > buffer.length) {
        if (known) return fail(lengthMismatch());
        const grown = Buffer.allocUnsafe(Math.min(bodyLimit, Math.max(buffer.length * 2, length + chunk.length)));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      chunk.copy(buffer, length);
      length += chunk.length;
    });
    payload.on('error', (err: Error) => fail(err));
    payload.on('end', () => {
      if (failed) return;
      if (known && length !== declared) return fail(lengthMismatch());
      done(null, length === buffer.length ? buffer : buffer.subarray(0, length));
    });
  });
}

/** the codes the error handler answers 413 and 400 for (src/http/error-handler.ts) */
const tooLarge = () => Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
const lengthMismatch = () =>
  Object.assign(new Error('Content-Length does not match the body'), { code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH', statusCode: 400 });
