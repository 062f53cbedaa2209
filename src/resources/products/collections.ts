import { defineCollection } from '../../storage/index.ts';
import { ProductSchema } from './schemas.ts';

/** The products area's stored collection (ResourceModule.collections). */
export const PRODUCTS = defineCollection({ name: 'products', schema: ProductSchema, idPrefix: 'prod', reseeded: true });
