import { defineCollection } from '../../storage/index.ts';
import { BookingItemSchema, BookingSchema, PassengerSchema } from './schemas.ts';
import { WizardSessionSchema } from './wizard-requests.ts';

/** The bookings area's stored collections (ResourceModule.collections). */
// Packed when large (src/storage/large-files/packed-rows.ts): 100k bookings as objects are ~70 MiB, packed ~20.
// The cost is GET /v1/bookings, which filters and sorts every booking: at 100k it inflates every
// page (~1 s) when its last list is gone (a write, or a GC: the list is held weakly).
export const BOOKINGS = defineCollection({ name: 'bookings', schema: BookingSchema, idPrefix: 'book', packed: true });
// read through the booking's index, never listed whole: packed when large
export const PASSENGERS = defineCollection({ name: 'passengers', schema: PassengerSchema, idPrefix: 'psg', packed: true });
export const BOOKING_ITEMS = defineCollection({ name: 'bookingItems', schema: BookingItemSchema, idPrefix: 'bkg', packed: true });
export const WIZARD_SESSIONS = defineCollection({ name: 'wizardSessions', schema: WizardSessionSchema, idPrefix: 'ws', copied: false });
