import { PEOPLE } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerPeopleRoutes } from './routes.ts';
import { PeopleService } from './service.ts';
import { PEOPLE_SAMPLE_EVENTS } from './sample-events.ts';

export const peopleResource: ResourceModule = {
  name: 'people',
  collections: [PEOPLE],
  sampleEvents: PEOPLE_SAMPLE_EVENTS,
  routes(app, ctx) {
    registerPeopleRoutes(app, new PeopleService(ctx.store, ctx.clock, ctx.bus));
  },
  control: () => import('./control.ts').then((m) => m.registerPeopleControl),
};
