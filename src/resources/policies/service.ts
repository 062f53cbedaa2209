import type { Principal } from '../../core/auth.ts';
import { parseId } from '../../core/ids.ts';
import type { Store } from '../../storage/index.ts';
import type { PolicyResponse } from './requests.ts';
import type { Policy } from './schemas.ts';
import { POLICIES } from './collections.ts';
import { outsideKeyProducts, unknownRecord } from '../../core/reasons.ts';

export class PolicyService {
  constructor(private readonly store: Store) {}

  /**
   * The bare record in the asked locale: `pt-BR` tries `pt-BR`, then `pt`;
   * without a translation the policy answers in its own locale, and `locale`
   * says which one the caller got.
   */
  get(principal: Principal, rawId: string, locale: string | undefined): PolicyResponse {
    const { translations, ...policy } = this.find(principal, rawId);
    if (locale === undefined) return policy;
    const wanted = locale.replace('_', '-').toLowerCase();
    const candidates = [wanted, wanted.split('-')[0]!];
    if (candidates.includes(policy.locale.toLowerCase())) return policy;
    const entries = Object.entries(translations);
    for (const candidate of candidates) {
      const hit = entries.find(([tag]) => tag.toLowerCase() === candidate);
      if (hit) return { ...policy, locale: hit[0], title: hit[1].title, description_html: hit[1].description_html };
    }
    return policy;
  }

  /** Deletion removes the record: a later GET or DELETE is a 404. */
  async delete(principal: Principal, rawId: string): Promise<{ ok: true }> {
    const policy = this.find(principal, rawId);
    await this.store.commit([POLICIES.deleteOp(principal.workspace.id, policy.id)]);
    return { ok: true };
  }

  /** A product policy of a product outside an organization key's productIds is invisible (404). */
  private find(principal: Principal, rawId: string): Policy {
    const id = parseId(POLICIES, 'id', rawId);
    const policy = POLICIES.in(this.store).get(principal.workspace.id, id);
    if (!policy) throw unknownRecord('Policy', id, POLICIES, 'id', principal.workspace.id);
    if (policy.product_id && principal.productIds.length > 0 && !principal.productIds.includes(policy.product_id)) {
      throw outsideKeyProducts('Policy', `policy ${id}`, policy.product_id, principal.keyPrefix, principal.productIds.length);
    }
    return policy;
  }
}
