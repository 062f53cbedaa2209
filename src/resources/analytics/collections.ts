import { defineCollection } from '../../storage/index.ts';
import { DeliveryEventRowSchema } from './schemas.ts';

/** The analytics area's stored collection (ResourceModule.collections); ids are `day|channel|event`. */
export const DELIVERY_EVENTS = defineCollection({ name: 'deliveryEvents', schema: DeliveryEventRowSchema, idPrefix: null });
