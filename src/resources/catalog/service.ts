import type { Principal } from '../../core/auth.ts';
import type { Store } from '../../storage/index.ts';
import type { ProductService } from '../products/service.ts';
import { PASSENGER_CODES, ROOM_CODES, type Extension, type PricingOption } from './schemas.ts';
import { EXTENSIONS, PRICING_OPTIONS } from './collections.ts';

const ORDER: readonly string[] = [...PASSENGER_CODES, ...ROOM_CODES];

/**
 * A product's price list: per passenger type (adult, child, infant), room
 * supplements, and optional add-ons (extensions). Only active rows are shown:
 * they are what a quote or booking can use. Products an organization key may
 * not see are a 404, as on GET /v1/products/:id.
 */
export class CatalogService {
  constructor(
    private readonly store: Store,
    private readonly products: ProductService,
  ) {}

  pricingOptions(principal: Principal, rawProductId: string): PricingOption[] {
    const product = this.products.get(principal, rawProductId);
    return PRICING_OPTIONS.in(this.store)
      .list(principal.workspace.id)
      .filter((o) => o.productId === product.id && o.active)
      .sort((a, b) => ORDER.indexOf(a.code) - ORDER.indexOf(b.code));
  }

  extensions(principal: Principal, rawProductId: string): Extension[] {
    const product = this.products.get(principal, rawProductId);
    return EXTENSIONS.in(this.store)
      .list(principal.workspace.id)
      .filter((e) => e.productId === product.id && e.active)
      .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }
}
