import { defineCollection } from '../../storage/collection.ts';
import { BookingItemSchema, BookingSchema, PassengerSchema } from './schemas.ts';
import { WizardSessionSchema } from './wizard-requests.ts';

/** The bookings area's stored collections (ResourceModule.collections). */
export const BOOKINGS = defineCollection({ name: 'bookings', schema: BookingSchema, idPrefix: 'book' });
// read through the booking's index, never listed whole: packed when large (src/storage/packed-rows.ts)
export const PASSENGERS = defineCollection({ name: 'passengers', schema: PassengerSchema, idPrefix: 'psg', packed: true });
export const BOOKING_ITEMS = defineCollection({ name: 'bookingItems', schema: BookingItemSchema, idPrefix: 'bkg', packed: true });
export const WIZARD_SESSIONS = defineCollection({ name: 'wizardSessions', schema: WizardSessionSchema, idPrefix: 'ws', copied: false });
