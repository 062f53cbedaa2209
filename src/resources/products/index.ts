import type { ResourceModule } from '../types.ts';
import { registerProductRoutes } from './routes.ts';
import { ProductService } from './service.ts';

export const productsResource: ResourceModule = {
  name: 'products',
  register(app, ctx) {
    registerProductRoutes(app, ctx, new ProductService(ctx.store));
  },
};
