import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import { sendSerialized } from '../../http/send.ts';
import type { SandboxContext } from '../../context.ts';
import type { ZodApp } from '../types.ts';
import { ListProductsQuerySchema, ProductIdParamsSchema, ProductListSchema, ProductSchema } from './schemas.ts';
import type { ProductService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const ProductEnvelopeSchema = z.object({ data: ProductSchema });

/** API description, "Products": GET /v1/products and GET /v1/products/:id. */
export function registerProductRoutes(app: ZodApp, _ctx: SandboxContext, service: ProductService): void {
  // The list is always sent as the cached JSON text, the production path, in tests
  // too: the serializer's validateResponses never sees it, so the test helper checks
  // its bodies against the OpenAPI document instead (test/helpers/openapi-check.ts).
  app.get(
    '/products',
    {
      schema: { querystring: ListProductsQuerySchema, response: { 200: ProductListSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: 'List products' },
    },
    async (request, reply) => sendSerialized(reply, service.listJson(request.principal, request.query)),
  );

  app.get(
    '/products/:id',
    {
      schema: { params: ProductIdParamsSchema, response: { 200: ProductEnvelopeSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: 'Get a product (wrapped in data: inferred)', inferred: true },
    },
    async (request) => ({ data: service.get(request.principal, request.params.id) }),
  );
}
