import { FORMS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerFormRoutes } from './routes.ts';
import { FormService } from './service.ts';

export const formsResource: ResourceModule = {
  name: 'forms',
  collections: [FORMS],
  routes(app, ctx) {
    registerFormRoutes(app, new FormService(ctx.store, ctx.clock));
  },
};
