import { z } from 'zod';
import { ExtensionSchema, PricingOptionSchema } from './schemas.ts';

/**
 * GET /v1/products/:id/pricing/options and GET /v1/products/:id/extensions
 * (API description, "Products"): request and response "not shown". Both are
 * short, bounded lists of one product, answered unpaginated in `data` like
 * every list ("Conventions" 4).
 */
export const ProductIdParamsSchema = z.object({ id: z.string().describe('product id, prod_<uuid>') });
export const PricingOptionListSchema = z.object({ data: z.array(PricingOptionSchema) }).meta({ 'x-sandbox-inferred': true });
export const ExtensionListSchema = z.object({ data: z.array(ExtensionSchema) }).meta({ 'x-sandbox-inferred': true });
