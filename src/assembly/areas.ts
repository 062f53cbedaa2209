import type { BackgroundService, RunningService, SandboxContext } from '../context.ts';
import { idempotencyPurgeService } from '../core/idempotency-purge.ts';
import { collectionsOf, servicesOf } from '../resources/index.ts';
import type { ResourceModule } from '../resources/types.ts';
import type { CollectionRegistry } from '../storage/index.ts';

/**
 * What the API areas declare besides their routes (src/resources/index.ts): the collections of
 * the sandbox, the core's bookkeeping around theirs, and the background services, theirs in
 * list order and then the sandbox's own, the hourly idempotency purge. Their routes are
 * registered by the servers (src/server.ts, src/control/index.ts), their webhook parts by the
 * webhooks step (webhooks.ts).
 */
export interface Areas {
  collections: CollectionRegistry;
  services: readonly BackgroundService[];
}

export function declaredBy(resources: readonly ResourceModule[]): Areas {
  return { collections: collectionsOf(resources), services: [...servicesOf(resources), idempotencyPurgeService] };
}

/** Starts the services once the store is open, in order, into `running` (which resets and stop walk). */
export async function startServices(services: readonly BackgroundService[], ctx: SandboxContext, running: RunningService[]): Promise<void> {
  for (const service of services) running.push(await service.start(ctx));
}
