import type { Store } from '../../storage/index.ts';
import type { SubscriptionSource } from '../../webhooks/subscriptions.ts';
import { WEBHOOK_SUBSCRIPTIONS } from './collections.ts';

/**
 * The webhook engine's view of this area's stored subscriptions: the
 * engine (src/webhooks/) reads and updates them through this interface, never
 * through the collection, so it knows no area.
 */
export function subscriptionSource(store: Store): SubscriptionSource {
  const subscriptions = WEBHOOK_SUBSCRIPTIONS.in(store);
  return {
    get: (workspaceId, id) => subscriptions.get(workspaceId, id),
    list: (workspaceId) => subscriptions.list(workspaceId),
    healthOps: (workspaceId, id, health) => {
      const current = subscriptions.get(workspaceId, id);
      return current ? [WEBHOOK_SUBSCRIPTIONS.putOp(workspaceId, { ...current, ...health })] : [];
    },
  };
}
