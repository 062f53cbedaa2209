import type { FastifyInstance } from 'fastify';
import { resolve } from 'node:path';
import { Auth } from './core/auth.ts';
import { Clock } from './core/clock.ts';
import { EventBus } from './core/events.ts';
import { FaultInjector } from './core/faults.ts';
import { RequestLog } from './core/request-log.ts';
import { Idempotency } from './core/idempotency.ts';
import { idempotencyPurgeService } from './core/idempotency-purge.ts';
import { RateLimiter } from './core/rate-limit.ts';
import { clockIsSaved, clockOps, restoreSavedClock, wholeClockOps, withClock, type ClockOrigin } from './core/saved-clock.ts';
import { randomToken } from './core/secrets.ts';
import { libraryWording, type OptionAdvice } from './core/option-advice.ts';
import { SelfGuard } from './core/self-guard.ts';
import { Suspension } from './core/suspension.ts';
import { DEFAULT_MANUAL_CLOCK_START, isLoopback, resolveOptions, type ResolvedOptions, type SandboxOptions } from './config.ts';
import type { RunningService, SandboxContext } from './context.ts';
import type { FixtureWorkspaceView as FixtureWorkspace } from './fixtures/fixture-workspaces.ts';
import { openFixtureSource } from './fixtures/source.ts';
import { RouteCatalog } from './http/openapi.ts';
import type { RunReport } from './report/schema.ts';
import { RunReportCounters } from './report/run-report.ts';
import { mergeReseededCatalog } from './fixtures/reseed.ts';
import { collectionsOf, RESOURCES, servicesOf } from './resources/index.ts';
import type { ResourceModule } from './resources/types.ts';
import { ORG_API_KEYS } from './resources/organizations/collections.ts';
import { buildApp } from './server.ts';
import { LazyControlPlane } from './http/control-forward.ts';
import { Drain, type StopSummary } from './http/drain.ts';
import { openStore } from './storage/index.ts';
import { withRows } from './storage/deferred.ts';
import { describeTakeover } from './storage/lock.ts';
import { OverlayStore } from './storage/overlay-store.ts';
import { createWorkspaceHandle, type WorkspaceHandle } from './workspaces/handle.ts';
import { WorkspaceManager, type CreateWorkspaceInput } from './workspaces/manager.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { freshenCopiedRow } from './workspaces/templates.ts';
import type { Collections, InitialCollections, Store } from './storage/types.ts';
import type { ProxyHandle } from './parity/proxy.ts';

export interface Sandbox {
  /** base URL of the API and control plane, e.g. http://127.0.0.1:4010 (empty when not listening) */
  url: string;
  /** `${url}/__sandbox` */
  controlUrl: string;
  port: number;
  host: string;
  /** the fixture workspaces and their documented keys */
  workspaces: readonly FixtureWorkspace[];
  /** everything resources, services and the control plane share */
  context: SandboxContext;
  /** the control-plane token when bound to a non-loopback host */
  controlToken: string | null;
  clock: Clock;
  /** what the start did with the clock saved in the database file (docs/storage.md, "The clock is saved") */
  clockOrigin: ClockOrigin;
  events: EventBus;
  store: Store;
  app: FastifyInstance;
  options: ResolvedOptions;
  /** the parity proxy when started with `proxy` (issue 40, docs/parity.md), else null */
  proxy: ProxyHandle | null;
  /** one line each: what start had to drop or take over, and (appended by stop) what stop set aside */
  warnings: readonly string[];
  /** back to the fixtures (created workspaces are kept, back at their template) */
  reset(): Promise<void>;
  /** a new isolated workspace for one test worker (docs/control-plane.md, "Workspaces on demand") */
  createWorkspace(input?: CreateWorkspaceInput): Promise<WorkspaceHandle>;
  /** what the /v1 API was asked since the start: by operation and status, never called, warnings, refusals, deliveries (docs/cli.md, "The run report") */
  report(): RunReport;
  /**
   * Stops taking connections, lets the requests in flight answer (up to `stopTimeoutMs`, then
   * they get 503 SANDBOX_STOPPING), stops the background services and flushes storage; says
   * how many requests were drained, cut and refused. A second call gets the first one's result.
   */
  stop(): Promise<StopSummary>;
}

/**
 * Raised for problems a person can fix (port in use, bad file); the CLI prints its message alone.
 * With `advice`, the message names the createSandbox option that fixes it, and the CLI names its flag.
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly problem: string,
    readonly advice?: OptionAdvice,
  ) {
    super(libraryWording(problem, advice));
  }
}

/** The product: one Fastify app over one store, one clock and one event bus. */
export function createSandbox(input: SandboxOptions = {}): Promise<Sandbox> {
  return createSandboxWith(RESOURCES, input);
}

/**
 * A sandbox serving the given API areas instead of the standard list
 * (src/resources/index.ts). Not public: tests use it to add a toy area
 * (test/toy-area.test.ts), the way a new area joins the list.
 */
export async function createSandboxWith(resources: readonly ResourceModule[], input: SandboxOptions = {}): Promise<Sandbox> {
  const startedAtMs = Date.now();
  const options = resolveOptions(input);
  const clock = new Clock(options.clock, clockStart(options));
  // a new database file is first written once the sandbox listens: a start that fails (a port
  // in use) leaves none behind (issue 26); the lock is taken now, and released on failure
  const { store: engine, fresh, staleLock, warnings } = await openStore({ ...(options.storage === 'memory' ? {} : { path: resolve(options.storage) }), fsync: options.fsync, holdNewFile: true, recover: options.recover });
  // one line, as a person starting it again after kill -9 wants to know (docs/storage.md, "Lock")
  if (staleLock && engine.path) warnings.unshift(describeTakeover(engine.path, staleLock));
  // created workspaces are copy-on-write views over their template (src/storage/overlay-store.ts)
  const store = new OverlayStore(engine, { freshen: freshenCopiedRow, cachedRows: options.workspaceCacheRows });
  // the clock is saved with a database file (issue 35); a store in memory is never started again
  const withSavedClock = (state: InitialCollections): InitialCollections => (engine.path ? withClock(state, clock) : state);
  let fixtures: Awaited<ReturnType<typeof openFixtureSource>>;
  // the seed is in memory at once; on a new file it is durable once writeHeld() has written it, below
  let seeded: Promise<void> = Promise.resolve();
  try {
    fixtures = await openFixtureSource({ fixturesDir: options.fixturesDir, seed: options.seed, nowMs: clock.now(), seeding: fresh });
    if (fresh) {
      seeded = store.replaceAll(withSavedClock(await fixtures.initial()));
      seeded.catch(() => undefined); // awaited after listening, where its error is thrown
    }
  } catch (err) {
    await engine.discardHeld().catch(() => undefined); // releases the lock
    throw err;
  }

  // after the fixtures (dated from the clock a reset goes back to), before the services schedule
  // their stored due times on it (issue 35)
  const clockOrigin = restoreSavedClock(clock, store, { newDatabase: fresh, fresh: options.freshClock, explicitStart: options.clockStart !== undefined });
  if (engine.path) clock.saveWith((changes) => store.commit(clockOps(changes)));

  const bus = new EventBus();
  const collections = collectionsOf(resources);
  const rateLimiter = new RateLimiter(clock);
  const idempotency = new Idempotency(store, clock);
  const suspension = new Suspension(clock, options.suspension === false ? {} : { enabled: true, ...(options.suspension === true ? {} : options.suspension) });
  const controlToken = isLoopback(options.host) ? null : (options.controlToken ?? randomToken(32));
  const selfGuard = new SelfGuard();
  // the /__sandbox app: its module is loaded and built on the first control request (issue 11)
  const controlPlane = new LazyControlPlane(() => import('./control/app.ts').then((m) => m.buildControlApp(ctx, resources)));
  const ctx: SandboxContext = {
    options,
    startedAtMs,
    store,
    clock,
    bus,
    auth: new Auth(store, clock, { internalApiKey: options.internalApiKey, revocationLagMs: options.revocationLagMs, orgKeys: ORG_API_KEYS }),
    rateLimiter,
    idempotency,
    routes: new RouteCatalog(),
    fixtureWorkspaces: () => fixtures.workspaces,
    reloadFixtures: async () => {
      const { before, after } = await fixtures.reload();
      await ctx.replaceState(mergeReseededCatalog(collections.all, store.exportCollections(), before, after));
    },
    controlToken,
    // a reset also undoes time travel (the fixtures' dates are relative to the clock's start);
    // created workspaces keep their keys and go back to their template (docs/control-plane.md)
    reset: async () => {
      clock.restart();
      await ctx.replaceState(withRows(await fixtures.initial(), ctx.workspaces.createdRows()));
    },
    importState: async (state, replaceOptions) => {
      // loaded on first use, as the control plane is (a start does not pay for it)
      const { checkImportedState } = await import('./control/state-import.ts');
      checkImportedState(state, collections);
      await ctx.replaceState(state, replaceOptions);
    },
    replaceState: async (state, replaceOptions) => {
      await store.replaceAll(withSavedClock(state), replaceOptions);
      rateLimiter.clear();
      suspension.forget();
      for (const service of running) await service.afterReset?.();
      bus.emit('reset', { at: clock.iso() });
    },
    faults: new FaultInjector(options.seed),
    selfGuard,
    requestLog: new RequestLog(bus, undefined, options.requestCaptureBytes),
    runReport: new RunReportCounters(() => clock.iso()),
    suspension,
    collections,
    controlPlane,
    stopRequest: { handler: null },
    parity: { recorder: null },
    webhooks: new WebhookDispatcher({ store, clock, bus, selfGuard, options }),
    workspaces: new WorkspaceManager({
      store,
      collections,
      orgKeys: ORG_API_KEYS,
      clock,
      rateLimiter,
      defaultRateLimits: options.enforceRateLimits ? 'enforce' : 'report',
      fixtureJson: () => fixtures.json(),
      fixtureWorkspaces: () => fixtures.workspaces,
      afterDeleted: (workspaceId) => suspension.forget(workspaceId),
      maxWorkspaces: options.maxWorkspaces,
      maxSnapshots: options.maxSnapshots,
      maxSnapshotBytes: options.maxSnapshotBytes,
      afterReplaced: async (workspaceId) => {
        suspension.forget(workspaceId);
        for (const service of running) await service.afterReset?.();
        bus.emit('reset', { at: clock.isoIn(workspaceId), workspaceId });
      },
    }),
  };
  bus.on('delivery', (update) => ctx.runReport.delivery(update));
  const running: RunningService[] = [];
  // the areas' services, and the sandbox's own: the hourly idempotency purge
  for (const service of [...servicesOf(resources), idempotencyPurgeService]) running.push(await service.start(ctx));

  const drain = new Drain();
  const app = buildApp(ctx, resources, controlPlane, drain);
  await app.ready();
  let url = '';
  // a start that fails from here stops what it started, and throws the first error
  const abort = async (err: unknown): Promise<never> => {
    clock.dispose();
    await app.close().catch(() => undefined);
    for (const service of running.reverse()) await Promise.resolve(service.stop()).catch(() => undefined);
    await engine.discardHeld().catch(() => undefined); // nothing acknowledged yet: a new file is left unwritten
    throw err;
  };
  if (options.listen) {
    try {
      url = await app.listen({ port: options.port, host: options.host });
    } catch (err) {
      await abort(listenError(err, options));
    }
  }
  if (url) drain.listening([app.server]);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  ctx.selfGuard.listening(port);
  if (url) url = `http://${options.host.includes(':') ? `[${options.host.replace(/^\[|\]$/g, '')}]` : options.host}:${port}`;
  // the port is ours: a new database file is written now, and is on disk before this returns
  try {
    await engine.writeHeld();
    await seeded;
    // a clock moved on, set aside (--fresh-clock) or never saved (an older file) is saved now
    if (engine.path && !clockIsSaved(clock, store)) await store.commit(wholeClockOps(clock, store));
  } catch (err) {
    await abort(err);
  }
  if (url) controlPlane.prewarmAfter(CONTROL_PREWARM_MS);

  let stopped: Promise<StopSummary> | null = null;
  const sandbox: Sandbox = {
    url,
    controlUrl: url ? `${url}/__sandbox` : '',
    port,
    host: options.host,
    get workspaces() {
      return fixtures.workspaces;
    },
    context: ctx,
    controlToken,
    clock,
    clockOrigin,
    events: bus,
    store,
    app,
    options,
    proxy: null,
    warnings,
    reset: ctx.reset,
    createWorkspace: (input) => createWorkspaceHandle(ctx, () => url, input),
    report: () => ctx.runReport.build(ctx.routes.routes, ctx.webhooks.outbox.pending().length),
    stop: () =>
      (stopped ??= (async () => {
        // first the requests in flight, while everything they use still runs (src/http/drain.ts);
        // past the deadline the ones left are abandoned: a write they make after store.close() is refused
        // the proxy first: its replays still use the app and the store
        await sandbox.proxy?.stop();
        const summary = await drain.stop(options.stopTimeoutMs);
        clock.dispose();
        await app.close();
        await controlPlane.close();
        for (const service of running.reverse()) await service.stop();
        await store.close();
        warnings.push(...engine.notes); // the CLI prints what stop added (an edit set aside)
        return summary;
      })()),
  };
  if (options.proxy) {
    // loaded only for `sandbox proxy`: a start does not pay for it
    try {
      const { startParityProxy } = await import('./parity/proxy-start.ts');
      sandbox.proxy = await startParityProxy(sandbox, options.proxy);
    } catch (err) {
      await sandbox.stop().catch(() => undefined);
      throw err;
    }
  }
  return sandbox;
}

/** how long a listening sandbox waits before building its control plane unasked (http/control-forward.ts) */
const CONTROL_PREWARM_MS = 100;

function clockStart(options: ResolvedOptions): number | undefined {
  const raw = options.clockStart ?? (options.clock === 'manual' ? DEFAULT_MANUAL_CLOCK_START : undefined);
  if (raw === undefined) return undefined;
  const ms = typeof raw === 'number' ? raw : Date.parse(raw);
  if (Number.isNaN(ms)) throw new SandboxError(`Invalid clock start "${raw}": use an ISO 8601 time`);
  return ms;
}

function listenError(err: unknown, options: ResolvedOptions): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new SandboxError(`Port ${options.port} on ${options.host} is already in use`, { option: 'port', text: (name) => `stop the other process or pass ${name} (0 picks a free port)` });
  if (code === 'EACCES') return new SandboxError(`Not allowed to listen on ${options.host}:${options.port}; pick a port above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new SandboxError(`Cannot listen on host ${options.host}: no such local address`);
  return err as Error;
}
