import { ProductService } from '../products/service.ts';
import type { ResourceModule } from '../types.ts';
import { registerCollectionMatchRoutes } from './routes.ts';
import { CollectionMatchService } from './service.ts';

export const collectionMatchesResource: ResourceModule = {
  name: 'collections-matches',
  collections: [],
  routes(app, ctx) {
    registerCollectionMatchRoutes(app, new CollectionMatchService(ctx.store, new ProductService(ctx.store)));
  },
};
