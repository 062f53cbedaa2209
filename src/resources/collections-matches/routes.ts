import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import type { CollectionMatchService } from './service.ts';

/** API description, "Collections": response `{items: [{productId}]}` exactly as documented. */
export const CollectionMatchesSchema = z.object({ items: z.array(z.object({ productId: z.string() })) });

export function registerCollectionMatchRoutes(app: ZodApp, service: CollectionMatchService): void {
  app.get('/collections/:id/matches', {
    schema: { params: z.object({ id: z.string().describe('collection id, col_<uuid>') }), response: { 200: CollectionMatchesSchema, ...errorResponses } },
    config: { scope: 'products:read', summary: "Preview the products matching a collection's rules" },
  }, async (request) => ({ items: service.matches(request.principal, request.params.id) }));
}
