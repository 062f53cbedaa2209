import type { Principal } from '../../core/auth.ts';
import { parseId } from '../../core/ids.ts';
import type { Store } from '../../storage/index.ts';
import type { ProductService } from '../products/service.ts';
import { matchesRules } from './rules.ts';
import { PRODUCT_COLLECTIONS } from '../catalog/collections.ts';
import { unknownRecord } from '../../core/reasons.ts';

/**
 * GET /v1/collections/:id/matches "previews the products matching the
 * collection's rules" (API description, "Collections"). Rules are evaluated
 * on every request against the live catalog, so a product that changes
 * changes the matches; products an organization key may not see never appear.
 * Order: newest product first, id breaking ties (as GET /v1/products).
 */
export class CollectionMatchService {
  constructor(
    private readonly store: Store,
    private readonly products: ProductService,
  ) {}

  matches(principal: Principal, rawId: string): { productId: string }[] {
    const id = parseId(PRODUCT_COLLECTIONS, 'id', rawId);
    const collection = PRODUCT_COLLECTIONS.in(this.store).get(principal.workspace.id, id);
    if (!collection) throw unknownRecord('Collection', id, PRODUCT_COLLECTIONS, 'id', principal.workspace.id);
    return this.products
      .visible(principal)
      .filter((p) => matchesRules(p, collection.rules))
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? 1 : -1))
      .map((p) => ({ productId: p.id }));
  }
}
