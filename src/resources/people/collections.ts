import { defineCollection } from '../../storage/index.ts';
import { PersonSchema } from './schemas.ts';

/** The people area's stored collection (ResourceModule.collections). */
// read by id (customers, passengers), never listed whole by a request: packed when large (src/storage/large-files/packed-rows.ts)
export const PEOPLE = defineCollection({ name: 'people', schema: PersonSchema, idPrefix: 'ppl', packed: true });
