import type { RunningService } from '../context.ts';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events.ts';
import type { ResolvedOptions } from '../config.ts';
import { ORG_API_KEYS } from '../resources/organizations/collections.ts';
import type { CollectionRegistry } from '../storage/index.ts';
import { WorkspaceManager } from '../workspaces/manager.ts';
import type { Guards } from './guards.ts';
import type { OpenedStorage } from './storage.ts';

/**
 * Workspaces on demand (src/workspaces/): created from a template over the same store, each with
 * its own suspension, rate buckets and clock advance; a replaced workspace lets every service
 * reschedule, as a reset does, and says so on the bus.
 */
export function workspaceManager(parts: {
  options: ResolvedOptions;
  clock: Clock;
  storage: OpenedStorage;
  guards: Guards;
  collections: CollectionRegistry;
  running: readonly RunningService[];
  bus: EventBus;
}): WorkspaceManager {
  const { options, clock, storage, guards, running, bus } = parts;
  return new WorkspaceManager({
    store: storage.store,
    collections: parts.collections,
    orgKeys: ORG_API_KEYS,
    clock,
    rateLimiter: guards.rateLimiter,
    defaultRateLimits: options.enforceRateLimits ? 'enforce' : 'report',
    fixtureJson: () => storage.fixtures.json(),
    fixtureWorkspaces: () => storage.fixtures.workspaces,
    defaultWorkspace: options.defaultWorkspace,
    afterDeleted: (workspaceId) => guards.suspension.forget(workspaceId),
    maxWorkspaces: options.maxWorkspaces,
    maxSnapshots: options.maxSnapshots,
    maxSnapshotBytes: options.maxSnapshotBytes,
    afterReplaced: async (workspaceId) => {
      guards.suspension.forget(workspaceId);
      for (const service of running) await service.afterReset?.();
      bus.emit('reset', { at: clock.isoIn(workspaceId), workspaceId });
    },
  });
}
