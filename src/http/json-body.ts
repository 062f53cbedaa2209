import type { FastifyInstance } from 'fastify';
import { validationError } from '../core/errors.ts';
import { MAX_JSON_DEPTH, tooDeepMessage, tooDeepPath } from '../core/json-depth.ts';
import { malformedJsonBody } from './json-syntax.ts';
import { acceptsEmptyObject } from './empty-body.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** how deeply this route's body may nest (default MAX_JSON_DEPTH; PUT /__sandbox/state takes more) */
    maxJsonDepth?: number;
  }
}

/**
 * The JSON body parser ("Common request rules": bodies are JSON; Content-Type
 * application/json is required for POST and PATCH bodies). It replaces
 * Fastify's own for cases the description leaves open:
 * - no body at all: HTTP client libraries send `Content-Type: application/json`
 *   on every request, so a GET or DELETE (or any route that takes no body)
 *   with that header and zero bytes is accepted; a route whose every body
 *   field is optional or has a default takes it as `{}`, its defaults
 *   (./empty-body.ts; also without the header, below); a route that needs a
 *   field answers the documented 400 VALIDATION_400 shape;
 * - a `__proto__` key: valid JSON, but the JavaScript prototype key; it is
 *   refused with a 400 that names where it is, never parsed into a prototype
 *   (docs/divergences.md);
 * - nesting deeper than 64 levels (deeper would overflow the stack): refused with a 400 that names
 *   the path, before any route, hook or serializer walks it (core/json-depth.ts).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, raw, done) => {
    const text = raw as string;
    if (text.trim() === '') {
      const schema = request.routeOptions.schema?.body;
      if (!schema) return done(null, undefined);
      return acceptsEmptyObject(schema) ? done(null, {}) : done(emptyBodyError(), undefined);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // the documented body, with where the JSON breaks in the reason (json-syntax.ts)
      return done(malformedJsonBody(text), undefined);
    }
    const limit = request.routeOptions.config?.maxJsonDepth ?? MAX_JSON_DEPTH;
    const tooDeep = tooDeepPath(value, limit, 'body');
    if (tooDeep !== null) return done(validationError([tooDeepMessage(tooDeep, limit)]), undefined);
    // the key can only appear spelled out or escaped (\u005f...)
    const where = text.includes('__proto__') || text.includes('\\u') ? protoKeyPath(value) : null;
    if (where) {
      return done(
        validationError([
          `${where}: the key "__proto__" is refused: JavaScript reserves it for an object's prototype, so the sandbox cannot store it as data; rename the key`,
        ]),
        undefined,
      );
    }
    done(null, value);
  });

  // no Content-Type and no bytes: Fastify parses nothing, so the body is undefined; on a route
  // whose every field has a default it is `{}` too (before validation, which fills the defaults in)
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body === undefined && acceptsEmptyObject(request.routeOptions.schema?.body)) request.body = {};
    done();
  });
}

export const emptyBodyError = () => validationError(['body: the request body is empty; send a JSON object']);

/** The path of the first own `__proto__` key (iterative: deep nesting cannot overflow the stack). */
export function protoKeyPath(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, 'body']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${path}.${i}`]));
      continue;
    }
    if (Object.hasOwn(value, '__proto__')) return `${path}.__proto__`;
    for (const [key, child] of Object.entries(value)) stack.push([child, `${path}.${key}`]);
  }
  return null;
}
