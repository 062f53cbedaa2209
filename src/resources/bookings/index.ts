import { BOOKING_ITEMS, BOOKINGS, PASSENGERS, WIZARD_SESSIONS } from './collections.ts';
import { Pricer } from '../departures/pricing.ts';
import { PeopleService } from '../people/service.ts';
import { ProductService } from '../products/service.ts';
import type { ResourceModule } from '../types.ts';
import { BookingPartsService } from './parts.ts';
import { BookingRecords } from './records.ts';
import { registerBookingRoutes } from './routes.ts';
import { BookingService } from './service.ts';
import { WizardService } from './wizard.ts';
import { BOOKING_SAMPLE_EVENTS } from './sample-events.ts';

export const bookingsResource: ResourceModule = {
  name: 'bookings',
  collections: [BOOKINGS, PASSENGERS, BOOKING_ITEMS, WIZARD_SESSIONS],
  sampleEvents: BOOKING_SAMPLE_EVENTS,
  routes(app, ctx) {
    const records = new BookingRecords(ctx.store, ctx.clock, ctx.bus);
    const pricer = new Pricer(ctx.store, ctx.clock);
    const people = new PeopleService(ctx.store, ctx.clock, ctx.bus);
    const bookings = new BookingService(records, pricer, people);
    registerBookingRoutes(
      app,
      {
        bookings,
        parts: new BookingPartsService(records, pricer, people),
        wizard: new WizardService(records, pricer, people, new ProductService(ctx.store), bookings),
      },
      ctx.options.strict,
    );
  },
};
