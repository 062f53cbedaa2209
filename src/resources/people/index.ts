import { PEOPLE } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerPeopleRoutes } from './routes.ts';
import { PeopleService } from './service.ts';

export const peopleResource: ResourceModule = {
  name: 'people',
  collections: [PEOPLE],
  routes(app, ctx) {
    registerPeopleRoutes(app, new PeopleService(ctx.store, ctx.clock, ctx.bus));
  },
  control: () => import('./control.ts').then((m) => m.registerPeopleControl),
};
