import { PRODUCTS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerProductRoutes } from './routes.ts';
import { ProductService } from './service.ts';
import { PRODUCT_SAMPLE_EVENTS } from './sample-events.ts';

export const productsResource: ResourceModule = {
  name: 'products',
  collections: [PRODUCTS],
  sampleEvents: PRODUCT_SAMPLE_EVENTS,
  routes(app, ctx) {
    registerProductRoutes(app, ctx, new ProductService(ctx.store));
  },
};
