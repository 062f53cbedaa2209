import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is already JSON (from a ResponseCache, as UTF-8 bytes).
 * Fastify passes strings and Buffers through untouched, so the hooks and
 * headers still apply and the serializer is skipped. The cast is the one place
 * a route steps outside its declared response type; the JSON was built from a
 * value of that type.
 */
export function sendSerialized(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return (reply as FastifyReply).type('application/json').send(json as never);
}
