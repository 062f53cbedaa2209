import { POLICIES } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerPolicyRoutes } from './routes.ts';
import { PolicyService } from './service.ts';

export const policiesResource: ResourceModule = {
  name: 'policies',
  collections: [POLICIES],
  routes(app, ctx) {
    registerPolicyRoutes(app, new PolicyService(ctx.store));
  },
};
