import type { FastifyRequest } from 'fastify';
import type { ZodApp } from '../resources/types.ts';

/**
 * GET / and GET /__sandbox: a small JSON index of where things are,
 * so someone who opens the sandbox's URL in a browser or curls it finds the
 * API, the control plane, the OpenAPI document and the health check.
 * Built from the Host the client used, so the links work from where it stands.
 * Under the control plane's prefix (GET /__sandbox) it is the `index` route of
 * ./contracts/plane.ts, wrapped in `data` like every control route.
 */
export function sandboxIndex(request: Pick<FastifyRequest, 'protocol' | 'headers' | 'hostname'>) {
  const base = `${request.protocol}://${request.headers.host ?? `${request.hostname}`}`;
  return {
    name: 'travel-commerce-sandbox',
    api: `${base}/v1`,
    controlPlane: `${base}/__sandbox`,
    openapi: `${base}/__sandbox/openapi.json`,
    health: `${base}/__sandbox/health`,
    stream: `${base}/__sandbox/stream`,
  };
}

/** At the root: GET / answers the same index (not wrapped: it is no control route). */
export function registerRootIndex(app: ZodApp): void {
  app.get('/', async (request) => sandboxIndex(request));
}
