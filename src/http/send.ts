import type { FastifyReply } from 'fastify';

/**
 * Sends a body that is already JSON text (from a ResponseCache). Fastify passes
 * strings through untouched, so the hooks and headers still apply and the
 * serializer is skipped. The cast is the one place a route steps outside its
 * declared response type; the string was built from a value of that type.
 */
export function sendSerialized(reply: FastifyReply, json: string): FastifyReply {
  return (reply as FastifyReply).type('application/json').send(json as never);
}
