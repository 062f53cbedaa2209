import { DEPARTURES } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { Pricer } from './pricing.ts';
import { registerDepartureRoutes } from './routes.ts';
import { DepartureService } from './service.ts';

export const departuresResource: ResourceModule = {
  name: 'departures',
  collections: [DEPARTURES],
  routes(app, ctx) {
    registerDepartureRoutes(app, new DepartureService(new Pricer(ctx.store, ctx.clock)));
  },
  control: () => import('./control.ts').then((m) => m.registerDepartureControl),
};
