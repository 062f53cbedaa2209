import type { Repository } from '../../storage/index.ts';

/** Workspaces whose grouping is kept (least recently used dropped first, rebuilt from one list). */
const MAX_WORKSPACES = 64;

/**
 * A catalog collection's rows grouped by product, in list order, rebuilt when
 * the partition's version changes (a catalog write; never a booking). Without
 * it, pricing a booking filters every pricing option and extension of the workspace, so a
 * create grows with the catalog: 2.5x from 10k to 100k seeded bookings, which
 * bring a product per 200.
 */
export class ByProduct<T extends { readonly id: string; readonly productId: string }> {
  readonly #groups = new Map<string, { version: number; byProduct: Map<string, T[]> }>();

  constructor(private readonly rows: Repository<T>) {}

  /** the rows of `productId`, in list order */
  of(workspaceId: string, productId: string): readonly T[] {
    const version = this.rows.version(workspaceId);
    let kept = this.#groups.get(workspaceId);
    if (kept && kept.version === version) {
      this.#groups.delete(workspaceId);
    } else {
      const byProduct = new Map<string, T[]>();
      for (const row of this.rows.list(workspaceId)) {
        const group = byProduct.get(row.productId);
        if (group) group.push(row);
        else byProduct.set(row.productId, [row]);
      }
      kept = { version, byProduct };
    }
    this.#groups.set(workspaceId, kept);
    for (const oldest of this.#groups.keys()) {
      if (this.#groups.size <= MAX_WORKSPACES) break;
      this.#groups.delete(oldest);
    }
    return kept.byProduct.get(productId) ?? [];
  }
}
