import { defineCollection } from '../../storage/index.ts';
import { CollectionSchema, COUPON_ID_PREFIX, CouponSchema, ExtensionSchema, PricingOptionSchema } from './schemas.ts';

/** The catalog area's stored collections (ResourceModule.collections). */
export const PRICING_OPTIONS = defineCollection({ name: 'pricingOptions', schema: PricingOptionSchema, idPrefix: 'p', reseeded: true });
export const EXTENSIONS = defineCollection({ name: 'extensions', schema: ExtensionSchema, idPrefix: 'ext', reseeded: true });
export const PRODUCT_COLLECTIONS = defineCollection({ name: 'collections', schema: CollectionSchema, idPrefix: 'col', reseeded: true });
export const COUPONS = defineCollection({ name: 'coupons', schema: CouponSchema, idPrefix: COUPON_ID_PREFIX, reseeded: true });
