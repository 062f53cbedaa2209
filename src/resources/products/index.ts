import { PRODUCTS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerProductRoutes } from './routes.ts';
import { ProductService } from './service.ts';

export const productsResource: ResourceModule = {
  name: 'products',
  collections: [PRODUCTS],
  routes(app, ctx) {
    registerProductRoutes(app, ctx, new ProductService(ctx.store));
  },
};
