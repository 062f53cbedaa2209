import { defineCollection } from '../../storage/index.ts';
import { DepartureSchema } from './schemas.ts';

/** The departures area's stored collection (ResourceModule.collections). */
export const DEPARTURES = defineCollection({ name: 'departures', schema: DepartureSchema, idPrefix: 'dept' });
