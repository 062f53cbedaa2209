import { z } from 'zod';
import { paginationEnvelopeSchema, paginationQuery } from '../../core/pagination.ts';

/**
 * Products (API description, "Product"): the description shows only `id`,
 * `title`, `status` (`active`) and the list filters `status` and `type`
 * (`tour`). Everything else is designed as a tour operator's catalog needs it
 * and marked inferred in the OpenAPI document. Money is integer minor units
 * (cents) with an ISO currency, never floats (docs/api-notes.md).
 */
export const PRODUCT_STATUSES = ['active', 'draft', 'archived'] as const;
export const PRODUCT_TYPES = ['tour', 'activity', 'transfer', 'package', 'cruise'] as const;

export const ProductSchema = z
  .object({
    id: z.string().describe('shape prod_<uuid>'),
    title: z.string(),
    status: z.enum(PRODUCT_STATUSES),
    type: z.enum(PRODUCT_TYPES),
    slug: z.string(),
    summary: z.string(),
    description: z.string(),
    destination: z.object({
      country: z.string().describe('ISO 3166-1 alpha-2'),
      region: z.string().nullable(),
      city: z.string(),
    }),
    durationDays: z.number().int().min(1),
    durationNights: z.number().int().min(0),
    tags: z.array(z.string()),
    languages: z.array(z.string()),
    currency: z.string().length(3),
    priceFrom: z.number().int().min(0).describe('lowest adult price, minor units'),
    minPax: z.number().int().min(1),
    maxPax: z.number().int().min(1),
    meetingPoint: z.string().nullable(),
    images: z.array(z.object({ url: z.string(), alt: z.string() })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ 'x-sandbox-inferred': true })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof ProductSchema>;

export const PRODUCT_SORT_FIELDS = ['createdAt', 'updatedAt', 'title', 'priceFrom', 'durationDays'] as const;

export const ListProductsQuerySchema = z.object({
  ...paginationQuery(50),
  status: z.enum(PRODUCT_STATUSES).optional(),
  type: z.enum(PRODUCT_TYPES).optional(),
  sort: z.string().optional().describe('createdAt, updatedAt, title, priceFrom, durationDays; prefix - for descending'),
});

export const ProductListSchema = paginationEnvelopeSchema(ProductSchema);
export const ProductIdParamsSchema = z.object({ id: z.string() });
