import { COUPONS, EXTENSIONS, PRICING_OPTIONS, PRODUCT_COLLECTIONS } from './collections.ts';
import { ProductService } from '../products/service.ts';
import type { ResourceModule } from '../types.ts';
import { registerCatalogRoutes } from './routes.ts';
import { CatalogService } from './service.ts';

export const catalogResource: ResourceModule = {
  name: 'catalog',
  collections: [PRICING_OPTIONS, EXTENSIONS, PRODUCT_COLLECTIONS, COUPONS],
  routes(app, ctx) {
    registerCatalogRoutes(app, new CatalogService(ctx.store, new ProductService(ctx.store)));
  },
};
