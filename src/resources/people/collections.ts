import { defineCollection } from '../../storage/collection.ts';
import { PersonSchema } from './schemas.ts';

/** The people area's stored collection (ResourceModule.collections). */
export const PEOPLE = defineCollection({ name: 'people', schema: PersonSchema, idPrefix: 'ppl' });
