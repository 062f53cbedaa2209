import { defineCollection } from '../../storage/collection.ts';
import { BookingItemSchema, BookingSchema, PassengerSchema } from './schemas.ts';
import { WizardSessionSchema } from './wizard-requests.ts';

/** The bookings area's stored collections (ResourceModule.collections). */
export const BOOKINGS = defineCollection({ name: 'bookings', schema: BookingSchema, idPrefix: 'book' });
export const PASSENGERS = defineCollection({ name: 'passengers', schema: PassengerSchema, idPrefix: 'psg' });
export const BOOKING_ITEMS = defineCollection({ name: 'bookingItems', schema: BookingItemSchema, idPrefix: 'bkg' });
export const WIZARD_SESSIONS = defineCollection({ name: 'wizardSessions', schema: WizardSessionSchema, idPrefix: 'ws', copied: false });
