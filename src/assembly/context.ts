import type { RunningService, SandboxContext } from '../context.ts';
import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events.ts';
import { RequestLog } from '../core/request-log.ts';
import { RouteCatalog } from '../core/route-catalog.ts';
import type { ResolvedOptions } from '../config.ts';
import { mergeReseededCatalog } from '../fixtures/reseed.ts';
import { LazyControlPlane } from '../http/control-forward.ts';
import { openApiDocument } from '../http/openapi.ts';
import type { RunReportCounters } from '../report/run-report.ts';
import type { ResourceModule } from '../resources/types.ts';
import { withRows } from '../storage/index.ts';
import type { WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { workspaceManager } from './workspaces.ts';
import type { Areas } from './areas.ts';
import type { Guards } from './guards.ts';
import type { OpenedStorage } from './storage.ts';

export interface ContextParts {
  resources: readonly ResourceModule[];
  options: ResolvedOptions;
  startedAtMs: number;
  clock: Clock;
  bus: EventBus;
  storage: OpenedStorage;
  guards: Guards;
  areas: Areas;
  webhooks: WebhookDispatcher;
  runReport: RunReportCounters;
  /** the background services, once started: a reset lets each reschedule its work */
  running: readonly RunningService[];
}

/**
 * The SandboxContext (src/context.ts) from the steps before it, with what only it can do: reset
 * and replace the whole state, reload the fixtures. The /__sandbox app is built on its first
 * request (a start that only serves /v1 never pays for it), from this context and the areas' control parts.
 */
export function assembleContext(parts: ContextParts): { ctx: SandboxContext; controlPlane: LazyControlPlane } {
  const { resources, options, clock, bus, storage, guards, running } = parts;
  const { store, fixtures } = storage;
  const collections = parts.areas.collections;
  const controlPlane = new LazyControlPlane(() => import('../control/app.ts').then((m) => m.buildControlApp(ctx, resources)));
  const ctx: SandboxContext = {
    options,
    startedAtMs: parts.startedAtMs,
    store,
    clock,
    bus,
    ...guards,
    routes: new RouteCatalog(openApiDocument),
    fixtureWorkspaces: () => fixtures.workspaces,
    reloadFixtures: async () => {
      const { before, after } = await fixtures.reload();
      await ctx.replaceState(mergeReseededCatalog(collections.all, store.exportCollections(), before, after));
    },
    // a reset also undoes time travel (the fixtures' dates are relative to the clock's start);
    // created workspaces keep their keys and go back to their template (docs/control-plane.md)
    reset: async () => {
      clock.restart();
      await ctx.replaceState(withRows(await fixtures.initial(), ctx.workspaces.createdRows()));
    },
    importState: async (state, replaceOptions) => {
      // loaded on first use, as the control plane is (a start does not pay for it)
      const { checkImportedState } = await import('../control/state-import.ts');
      checkImportedState(state, collections);
      await ctx.replaceState(state, replaceOptions);
    },
    replaceState: async (state, replaceOptions) => {
      await store.replaceAll(storage.withSavedClock(state), replaceOptions);
      guards.rateLimiter.clear();
      guards.suspension.forget();
      for (const service of running) await service.afterReset?.();
      bus.emit('reset', { at: clock.iso() });
    },
    requestLog: new RequestLog(bus, undefined, options.requestCaptureBytes),
    runReport: parts.runReport,
    collections,
    controlPlane,
    stopRequest: { handler: null },
    readOnly: { reason: null },
    parity: { recorder: null },
    webhooks: parts.webhooks,
    workspaces: workspaceManager({ options, clock, storage, guards, collections, running, bus }),
  };
  return { ctx, controlPlane };
}
