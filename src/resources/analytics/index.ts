import { DELIVERY_EVENTS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerAnalyticsRoutes } from './routes.ts';
import { AnalyticsService } from './service.ts';

export const analyticsResource: ResourceModule = {
  name: 'analytics',
  collections: [DELIVERY_EVENTS],
  routes(app, ctx) {
    registerAnalyticsRoutes(app, new AnalyticsService(ctx.store), ctx.options.strict);
  },
};
