import { ProductService } from '../products/service.ts';
import type { ResourceModule } from '../types.ts';
import { registerCatalogRoutes } from './routes.ts';
import { CatalogService } from './service.ts';

export const catalogResource: ResourceModule = {
  name: 'catalog',
  register(app, ctx) {
    registerCatalogRoutes(app, new CatalogService(ctx.store, new ProductService(ctx.store)));
  },
};
