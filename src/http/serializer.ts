import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/**
 * Response serialization. By default a plain JSON.stringify: routes already
 * build their bodies from the same zod schemas, and the hot path should not pay
 * for a second parse. With `validateResponses` (the test suite turns it on)
 * every body is checked against its declared response schema first, so a shape
 * drift fails loudly in tests. Bodies a route sends as ready JSON text (the
 * cached product list, src/http/send.ts) skip the serializer in both modes.
 */
export function createSerializerCompiler(validate: boolean) {
  return ({ schema, method, url }: { schema: unknown; method: string; url: string }) => {
    if (!validate) return (data: unknown) => JSON.stringify(data);
    const zodSchema = schema as z.ZodType;
    return (data: unknown) => {
      const result = zodSchema.safeParse(data);
      if (!result.success) {
        const issue = result.error.issues[0]!;
        throw new Error(`Response of ${method} ${url} does not match its schema at ${issue.path.join('.')}: ${issue.message}`);
      }
      return JSON.stringify(data);
    };
  };
}

export type SerializerCompiler = FastifySchemaCompiler<unknown>;
