import type { Principal } from '../../core/auth.ts';
import { parseId } from '../../core/ids.ts';
import { paginate, parseSort, sortRows } from '../../core/pagination.ts';
import { ResponseCache } from '../../core/response-cache.ts';
import type { Repository, Store } from '../../storage/index.ts';
import { PRODUCT_SORT_FIELDS, type Product } from './schemas.ts';
import { PRODUCTS } from './collections.ts';
import { outsideKeyProducts, unknownRecord } from '../../core/reasons.ts';

export interface ListProductsQuery {
  limit: number;
  offset: number;
  status?: string | undefined;
  type?: string | undefined;
  sort?: string | undefined;
}

const DEFAULT_SORT = { field: 'createdAt', descending: true };

export class ProductService {
  private cache = new ResponseCache();

  private readonly products: Repository<Product>;

  constructor(store: Store) {
    this.products = PRODUCTS.in(store);
  }

  /** Products the principal may see: organization keys are limited to their productIds (empty = all). */
  visible(principal: Principal): Product[] {
    const all = this.products.list(principal.workspace.id);
    if (principal.productIds.length === 0) return [...all];
    const allowed = new Set(principal.productIds);
    return all.filter((p) => allowed.has(p.id));
  }

  list(principal: Principal, query: ListProductsQuery) {
    const sort = parseSort(query.sort, PRODUCT_SORT_FIELDS, DEFAULT_SORT);
    let rows = this.visible(principal);
    if (query.status) rows = rows.filter((p) => p.status === query.status);
    if (query.type) rows = rows.filter((p) => p.type === query.type);
    // id breaks ties so that pages never overlap or skip
    sortRows(
      rows.sort((a, b) => (a.id < b.id ? -1 : 1)),
      sort,
      (p, f) => p[f as keyof Product],
    );
    return paginate(rows, query);
  }

  /** The list, serialized once per version of the catalog (see ResponseCache). */
  listJson(principal: Principal, query: ListProductsQuery): Buffer {
    const ws = principal.workspace.id;
    const key = [ws, this.products.version(ws), principal.productIds.join(','), query.status, query.type, query.sort, query.limit, query.offset].join('|');
    return this.cache.get(key, () => this.list(principal, query));
  }

  get(principal: Principal, rawId: string): Product {
    const id = parseId(PRODUCTS, 'id', rawId);
    // the key's product list first: its reason then never tells whether the product exists
    if (principal.productIds.length > 0 && !principal.productIds.includes(id))
      throw outsideKeyProducts('Product', id, id, principal.keyPrefix, principal.productIds.length);
    const product = this.products.get(principal.workspace.id, id);
    if (!product) throw unknownRecord('Product', id, PRODUCTS, 'id', principal.workspace.id);
    return product;
  }
}
