import { defineCollection } from '../../storage/index.ts';
import { PolicySchema } from './schemas.ts';

/** The policies area's stored collection (ResourceModule.collections). */
export const POLICIES = defineCollection({ name: 'policies', schema: PolicySchema, idPrefix: 'pol', reseeded: true });
