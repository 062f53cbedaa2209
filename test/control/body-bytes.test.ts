import Fastify, { type FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBodyBytesParser } from '../../src/control/body-bytes.ts';

/**
 * The body of PUT /__sandbox/state, copied into one buffer as it arrives:
 * made at the Content-Length, or grown when there is none;
 * past the limit the error the error handler answers 413 for.
 */
const LIMIT = 100_000;
let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.register(async (scope) => {
    registerBodyBytesParser(scope, LIMIT);
    scope.put('/x', async (request) => {
      const body = request.body as Buffer;
      return { length: body.length, same: body.equals(Buffer.from(expected)) };
    });
  });
  app.setErrorHandler((err: { code?: string; statusCode?: number }, _request, reply) => reply.code(err.statusCode ?? 500).send({ code: err.code }));
  await app.ready();
});
afterAll(() => app.close());

let expected = '';
const chunked = (text: string, size: number) =>
  Readable.from(Array.from({ length: Math.ceil(text.length / size) }, (_, i) => Buffer.from(text.slice(i * size, (i + 1) * size))));

describe('the body as bytes', () => {
  it('keeps the body whole, with a Content-Length or without one (grown as chunks come)', async () => {
    expected = JSON.stringify({ rows: Array.from({ length: 2000 }, (_, i) => ({ id: `r${i}`, name: 'é ☕' })) }).slice(0, 90_000);
    const withLength = await app.inject({ method: 'PUT', url: '/x', payload: expected, headers: { 'content-type': 'application/json' } });
    expect(withLength.json()).toEqual({ length: Buffer.byteLength(expected), same: true });
    const withoutLength = await app.inject({ method: 'PUT', url: '/x', payload: chunked(expected, 1000), headers: { 'content-type': 'application/json' } });
    expect(withoutLength.json()).toEqual({ length: Buffer.byteLength(expected), same: true });
  });

  it('refuses past the limit, with or without a Content-Length', async () => {
    const big = 'x'.repeat(LIMIT + 1);
    expect((await app.inject({ method: 'PUT', url: '/x', payload: big, headers: { 'content-type': 'application/json' } })).json()).toEqual({
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    });
    const streamed = await app.inject({ method: 'PUT', url: '/x', payload: chunked(big, 4096), headers: { 'content-type': 'application/json' } });
    expect(streamed.statusCode).toBe(413);
  });
});
