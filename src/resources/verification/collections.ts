import { defineCollection } from '../../storage/index.ts';
import { VerificationSchema } from './schemas.ts';

/** The verification area's stored collection (ResourceModule.collections). */
export const VERIFICATIONS = defineCollection({ name: 'verifications', schema: VerificationSchema, idPrefix: 'ver', copied: false });
