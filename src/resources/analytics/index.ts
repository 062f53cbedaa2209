import type { ResourceModule } from '../types.ts';
import { registerAnalyticsRoutes } from './routes.ts';
import { AnalyticsService } from './service.ts';

export const analyticsResource: ResourceModule = {
  name: 'analytics',
  register(app, ctx) {
    registerAnalyticsRoutes(app, new AnalyticsService(ctx.store));
  },
};
