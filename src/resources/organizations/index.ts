import { ORG_API_KEYS, ORGANIZATIONS } from './collections.ts';
import { orgKeyUsageService } from './usage.ts';
import type { ResourceModule } from '../types.ts';
import { registerOrganizationRoutes } from './routes.ts';
import { OrgKeyService } from './service.ts';

export const organizationsResource: ResourceModule = {
  name: 'organizations',
  collections: [ORGANIZATIONS, ORG_API_KEYS],
  routes(app, ctx) {
    registerOrganizationRoutes(app, new OrgKeyService(ctx.store, ctx.clock, ctx.auth), ctx.idempotency);
  },
  control: () => import('./control.ts').then((m) => m.registerOrgKeyControl),
  services: [orgKeyUsageService],
};
