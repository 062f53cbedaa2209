import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import type { CollectionMatchService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const CollectionIdParamsSchema = z.object({ id: z.string().describe('collection id, col_<uuid>') });

/** API description, "Collections": response `{items: [{productId}]}` exactly as documented. */
export const CollectionMatchesSchema = z.object({ items: z.array(z.object({ productId: z.string() })) });

export function registerCollectionMatchRoutes(app: ZodApp, service: CollectionMatchService): void {
  app.get(
    '/collections/:id/matches',
    {
      schema: { params: CollectionIdParamsSchema, response: { 200: CollectionMatchesSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: "Preview the products matching a collection's rules" },
    },
    async (request) => ({ items: service.matches(request.principal, request.params.id) }),
  );
}
