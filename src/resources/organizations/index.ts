import type { ResourceModule } from '../types.ts';
import { registerOrgKeyControl } from './control.ts';
import { registerOrganizationRoutes } from './routes.ts';
import { OrgKeyService } from './service.ts';

export const organizationsResource: ResourceModule = {
  name: 'organizations',
  register(app, ctx) {
    registerOrganizationRoutes(app, new OrgKeyService(ctx.store, ctx.clock, ctx.auth), ctx.idempotency);
  },
  control: registerOrgKeyControl,
};
