import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { ExtensionListSchema, PricingOptionListSchema, ProductIdParamsSchema } from './requests.ts';
import type { CatalogService } from './service.ts';

/** API description, "Products": a product's pricing options and extensions (shapes inferred). */
export function registerCatalogRoutes(app: ZodApp, service: CatalogService): void {
  app.get(
    '/products/:id/pricing/options',
    {
      schema: { params: ProductIdParamsSchema, response: { 200: PricingOptionListSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: 'Prices per passenger type and room supplements of a product', inferred: true },
    },
    async (request) => ({ data: service.pricingOptions(request.principal, request.params.id) }),
  );

  app.get(
    '/products/:id/extensions',
    {
      schema: { params: ProductIdParamsSchema, response: { 200: ExtensionListSchema, ...errorResponses } },
      config: { scope: 'products:read', summary: 'Optional add-ons (extensions) of a product, with prices', inferred: true },
    },
    async (request) => ({ data: service.extensions(request.principal, request.params.id) }),
  );
}
