import type { Op } from '../storage/index.ts';

/**
 * The subscriptions the engine delivers to, as it reads them. The
 * engine knows no area: the webhooks area stores the subscriptions and gives the
 * engine this interface over them (src/resources/webhooks/subscription-source.ts,
 * its ResourceModule's `webhookSubscriptions`).
 */
export interface Subscription {
  id: string;
  url: string;
  /** the event names or patterns it receives (matching.ts) */
  events: readonly string[];
  active: boolean;
  max_retries: number;
  /** custom headers sent with every delivery */
  headers: Record<string, string> | null;
  /** the signing secret (signing.ts) */
  secret: string;
  updated_at: string;
  // its delivery health, which the engine keeps (subscription-health.ts)
  last_delivery_at: string | null;
  failure_count: number;
  failing_since?: string | null | undefined;
  disabled?: { at: string; reason: string } | null | undefined;
}

/** What an attempt's outcome changes on its subscription (subscription-health.ts). */
export type SubscriptionHealth = Pick<Subscription, 'active' | 'updated_at' | 'last_delivery_at' | 'failure_count' | 'failing_since' | 'disabled'>;

export interface SubscriptionSource {
  get(workspaceId: string, id: string): Subscription | undefined;
  list(workspaceId: string): readonly Subscription[];
  /** the ops that store a subscription's new health with its delivery's commit ([] when it is gone) */
  healthOps(workspaceId: string, id: string, health: SubscriptionHealth): Op[];
}

/** A sandbox without the webhooks area: nobody subscribes, so no event is delivered. */
export const NO_SUBSCRIPTIONS: SubscriptionSource = {
  get: () => undefined,
  list: () => [],
  healthOps: () => [],
};

/** The health fields of a subscription, to hand to `healthOps`. */
export function healthOf(sub: Subscription): SubscriptionHealth {
  const { active, updated_at, last_delivery_at, failure_count, failing_since, disabled } = sub;
  return { active, updated_at, last_delivery_at, failure_count, failing_since, disabled };
}
