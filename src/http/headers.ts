import type { FastifyRequest } from 'fastify';

/** The first value of a request header (Node joins most repeated headers, but not all). */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
