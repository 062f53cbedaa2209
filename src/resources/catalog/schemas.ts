import { z } from 'zod';

/**
 * Catalog records next to products (API description, "Departure, pricing
 * option, extension" and "Collection match item"): their record fields are
 * "not shown", so every record here is designed by the sandbox and marked
 * inferred. Money is integer minor units (cents) with an ISO currency.
 */
const INFERRED = { 'x-sandbox-inferred': true } as const;
const money = () => z.number().int().min(0).describe('integer minor units (cents)');
const currency = () => z.string().regex(/^[A-Z]{3}$/, 'Expected a 3-letter ISO 4217 currency code');

export const PASSENGER_CODES = ['adult', 'child', 'infant'] as const;
export const ROOM_CODES = ['single', 'double', 'twin', 'triple'] as const;
/** people sharing one room of each type */
export const ROOM_OCCUPANCY: Record<(typeof ROOM_CODES)[number], number> = { single: 1, double: 2, twin: 2, triple: 3 };

export const PricingOptionSchema = z
  .object({
    id: z.string().describe('shape p_<uuid>'),
    productId: z.string().describe('shape prod_<uuid>'),
    kind: z.enum(['passenger', 'room']),
    code: z.enum([...PASSENGER_CODES, ...ROOM_CODES]),
    name: z.string().min(1),
    amount: money().describe('passenger: price per person; room: supplement per room (minor units)'),
    currency: currency(),
    minAge: z.number().int().min(0).nullable(),
    maxAge: z.number().int().min(0).nullable(),
    occupancy: z.number().int().min(1).nullable().describe('people per room (room options only)'),
    active: z.boolean(),
  })
  .superRefine((o, ctx) => {
    const isPassengerCode = (PASSENGER_CODES as readonly string[]).includes(o.code);
    if (o.kind === 'passenger' && !isPassengerCode) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: 'passenger options use adult, child or infant' });
    }
    if (o.kind === 'room' && isPassengerCode) {
      ctx.addIssue({ code: 'custom', path: ['code'], message: 'room options use single, double, twin or triple' });
    }
    if (o.kind === 'room' && o.occupancy === null) {
      ctx.addIssue({ code: 'custom', path: ['occupancy'], message: 'room options need an occupancy' });
    }
    if (o.minAge !== null && o.maxAge !== null && o.minAge > o.maxAge) {
      ctx.addIssue({ code: 'custom', path: ['maxAge'], message: 'maxAge is below minAge' });
    }
  })
  .meta(INFERRED)
  .meta({ id: 'PricingOption' });
export type PricingOption = z.infer<typeof PricingOptionSchema>;

export const EXTENSION_PRICING_UNITS = ['per_person', 'per_booking', 'per_unit'] as const;

export const ExtensionSchema = z
  .object({
    id: z.string().describe('shape ext_<uuid>'),
    productId: z.string().describe('shape prod_<uuid>'),
    code: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'Expected a lower-case code'),
    name: z.string().min(1),
    description: z.string(),
    amount: money(),
    currency: currency(),
    pricingUnit: z.enum(EXTENSION_PRICING_UNITS),
    maxQuantity: z.number().int().min(1),
    active: z.boolean(),
  })
  .meta(INFERRED)
  .meta({ id: 'Extension' });
export type Extension = z.infer<typeof ExtensionSchema>;

export const COLLECTION_RULE_FIELDS = ['type', 'status', 'tag', 'destination.country', 'destination.city', 'priceFrom', 'durationDays'] as const;
export const COLLECTION_RULE_OPERATORS = ['eq', 'neq', 'in', 'contains', 'gte', 'lte'] as const;
const NUMERIC_RULE_FIELDS: readonly string[] = ['priceFrom', 'durationDays'];

export const CollectionConditionSchema = z
  .object({
    field: z.enum(COLLECTION_RULE_FIELDS),
    operator: z.enum(COLLECTION_RULE_OPERATORS),
    value: z.union([z.string(), z.number(), z.array(z.string())]),
  })
  .superRefine((c, ctx) => {
    const isArray = Array.isArray(c.value);
    if ((c.operator === 'in') !== isArray) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'operator "in" takes an array of strings; other operators a single value' });
    }
    if ((c.operator === 'gte' || c.operator === 'lte') && typeof c.value !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator "${c.operator}" takes a number` });
    }
    if (NUMERIC_RULE_FIELDS.includes(c.field) && c.operator !== 'in' && typeof c.value !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `field "${c.field}" is compared with a number` });
    }
  });
export type CollectionCondition = z.infer<typeof CollectionConditionSchema>;

export const CollectionRulesSchema = z.object({
  match: z.enum(['all', 'any']),
  conditions: z.array(CollectionConditionSchema).min(1),
});
export type CollectionRules = z.infer<typeof CollectionRulesSchema>;

export const CollectionSchema = z
  .object({
    id: z.string().describe('shape col_<uuid>'),
    name: z.string().min(1),
    slug: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Expected a lower-case, hyphenated slug'),
    description: z.string(),
    rules: CollectionRulesSchema,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta(INFERRED);
export type Collection = z.infer<typeof CollectionSchema>;

/** Internal: coupons are applied by quotes and bookings; there is no public endpoint. */
export const CouponSchema = z
  .object({
    id: z.string().describe('shape cpn_<uuid>'),
    code: z.string().regex(/^[A-Z0-9][A-Z0-9_-]*$/, 'Expected an upper-case coupon code'),
    kind: z.enum(['percent', 'fixed']),
    value: z.number().int().min(1).describe('percent: 1-100; fixed: minor units'),
    currency: currency().nullable().describe('set for fixed coupons'),
    active: z.boolean(),
    validUntil: z.iso.datetime().nullable(),
  })
  .superRefine((c, ctx) => {
    if (c.kind === 'percent' && c.value > 100) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'a percent coupon is at most 100' });
    }
    if (c.kind === 'fixed' && c.currency === null) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: 'a fixed coupon needs a currency' });
    }
  })
  .meta(INFERRED);
export type Coupon = z.infer<typeof CouponSchema>;
export const COUPON_ID_PREFIX = 'cpn';
