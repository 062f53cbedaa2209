import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { validationError } from '../core/errors.ts';

/**
 * A query parameter that takes one value, given more than once (`?limit=5&limit=10`), is a 400
 * VALIDATION_400 naming it (`querystring.limit: given 2 times …`, as other query failures are
 * named), on every route of both apps. The query parser turns a repeat into an array, and the
 * schema would say only `expected number, received NaN`. Which value wins is not
 * shown in the API description, and guessing would hide a client's bug. Parameters the route
 * does not declare are ignored, repeated or not, as single ones are.
 */
export function registerRepeatedQueryCheck(app: FastifyInstance): void {
  // callback style: runs on every request and almost always returns at once (docs/benchmarks.md)
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') return done();
    let repeated: string[] | null = null;
    for (const name in query) {
      const value = query[name];
      if (!Array.isArray(value) || !takesOneValue(request.routeOptions.schema?.querystring, name)) continue;
      (repeated ??= []).push(
        `querystring.${name}: given ${value.length} times (${value.map((v) => JSON.stringify(String(v).slice(0, 40))).join(', ')}); send it once`,
      );
    }
    done(repeated ? validationError(repeated) : undefined);
  });
}

/** True when the route declares the parameter and its schema is not an array. */
function takesOneValue(schema: unknown, name: string): boolean {
  const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  // own keys only: `?__proto__=1&__proto__=2` must not read Object.prototype (found by test/fuzz)
  if (!shape || !Object.hasOwn(shape, name)) return false;
  let type = shape[name]!;
  // optional(), default(), nullable() wrap the parameter's own type
  for (let def = type._zod.def as { type: string; innerType?: z.ZodType }; def.innerType; def = type._zod.def as typeof def) type = def.innerType;
  return type._zod.def.type !== 'array';
}
