import type { ResourceModule } from '../types.ts';
import { registerPolicyRoutes } from './routes.ts';
import { PolicyService } from './service.ts';

export const policiesResource: ResourceModule = {
  name: 'policies',
  register(app, ctx) {
    registerPolicyRoutes(app, new PolicyService(ctx.store));
  },
};
