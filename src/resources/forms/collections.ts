import { defineCollection } from '../../storage/index.ts';
import { FormSchema } from './schemas.ts';

/** The forms area's stored collection (ResourceModule.collections). */
export const FORMS = defineCollection({ name: 'forms', schema: FormSchema, idPrefix: 'form', reseeded: true });
