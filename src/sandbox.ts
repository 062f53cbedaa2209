import type { FastifyInstance } from 'fastify';
import type { Clock } from './core/clock.ts';
import { EventBus } from './core/events.ts';
import type { ClockOrigin } from './core/saved-clock.ts';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './config.ts';
import type { RunningService, SandboxContext } from './context.ts';
import type { FixtureWorkspaceView as FixtureWorkspace } from './fixtures/fixture-workspaces.ts';
import type { LazyControlPlane } from './http/control-forward.ts';
import type { StopSummary } from './http/drain.ts';
import type { RunReport } from './report/schema.ts';
import { RunReportCounters } from './report/run-report.ts';
import { RESOURCES } from './resources/index.ts';
import type { ResourceModule } from './resources/types.ts';
import type { Store } from './storage/index.ts';
import { createWorkspaceHandle, type WorkspaceHandle } from './workspaces/handle.ts';
import type { CreateWorkspaceInput } from './workspaces/manager.ts';
import { declaredBy, startServices } from './assembly/areas.ts';
import { buildClock, restoreClock } from './assembly/clock.ts';
import { assembleContext } from './assembly/context.ts';
import { buildGuards } from './assembly/guards.ts';
import { startServers, type Servers } from './assembly/servers.ts';
import { openStorage, type OpenedStorage } from './assembly/storage.ts';
import { buildWebhooks } from './assembly/webhooks.ts';
import { checkDefaultWorkspace } from './assembly/default-workspace.ts';
import { defaultWorkspaceOf } from './core/workspace-lookup.ts';
import type { WorkspaceMode } from './core/tenancy.ts';
import type { ProxyHandle } from './parity/proxy.ts';

export { SandboxError } from './assembly/sandbox-error.ts';

export interface Sandbox {
  /** base URL of the API and control plane, e.g. http://127.0.0.1:4010 (empty when not listening) */
  url: string;
  /** `${url}/__sandbox` */
  controlUrl: string;
  port: number;
  host: string;
  /** the fixture workspaces and their documented keys */
  workspaces: readonly FixtureWorkspace[];
  /**
   * the default workspace (src/core/default-workspace.ts): where the CLI, MCP, the inspector and the
   * dashboard work when not told which; the `defaultWorkspace` option's, else the first sandbox-mode
   * fixture workspace. Null when the sandbox holds no workspace
   */
  readonly defaultWorkspace: { id: string; name: string; mode: WorkspaceMode } | null;
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
  /** the parity proxy when started with `proxy` (docs/parity.md), else null */
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

/** The product: one Fastify app over one store, one clock and one event bus. */
export function createSandbox(input: SandboxOptions = {}): Promise<Sandbox> {
  return createSandboxWith(RESOURCES, input);
}

/**
 * A sandbox serving the given API areas instead of the standard list
 * (src/resources/index.ts). Not public: tests use it to add a toy area
 * (test/toy-area.test.ts), the way a new area joins the list.
 *
 * The assembly, one step a line; each step is a function in src/assembly/ a reader can open
 * alone (docs/architecture.md, "Assembly").
 */
export async function createSandboxWith(resources: readonly ResourceModule[], input: SandboxOptions = {}): Promise<Sandbox> {
  const startedAtMs = Date.now();
  const options = resolveOptions(input);
  const clock = buildClock(options);
  const storage = await openStorage(options, clock);
  const clockOrigin = restoreClock(clock, storage, options);
  const guards = buildGuards(options, clock, storage.store);
  const areas = declaredBy(resources);
  const bus = new EventBus();
  const runReport = new RunReportCounters(() => clock.iso());
  const webhooks = buildWebhooks(resources, { store: storage.store, clock, bus, selfGuard: guards.selfGuard, faults: guards.faults, options, runReport });
  const running: RunningService[] = [];
  const { ctx, controlPlane } = assembleContext({ resources, options, startedAtMs, clock, bus, storage, guards, areas, webhooks, runReport, running });
  await startServices(areas.services, ctx, running);
  const servers = await startServers(ctx, resources, controlPlane, storage, running);
  const sandbox = sandboxHandle({ ctx, storage, servers, controlPlane, running, clockOrigin });
  await stopOnFailure(sandbox, () => checkDefaultWorkspace(ctx));
  if (options.proxy) await startProxy(sandbox, options.proxy);
  return sandbox;
}

/** A check made once the sandbox runs: its failure stops the sandbox, then throws. */
async function stopOnFailure(sandbox: Sandbox, check: () => void): Promise<void> {
  try {
    check();
  } catch (err) {
    await sandbox.stop().catch(() => undefined);
    throw err;
  }
}

/** `sandbox proxy`: its module is loaded only then, so a start does not pay for it. */
async function startProxy(sandbox: Sandbox, proxy: NonNullable<ResolvedOptions['proxy']>): Promise<void> {
  try {
    const { startParityProxy } = await import('./parity/proxy-start.ts');
    sandbox.proxy = await startParityProxy(sandbox, proxy);
  } catch (err) {
    await sandbox.stop().catch(() => undefined);
    throw err;
  }
}

/** The running sandbox as its caller holds it; its stop undoes the assembly in reverse. */
function sandboxHandle(parts: {
  ctx: SandboxContext;
  storage: OpenedStorage;
  servers: Servers;
  controlPlane: LazyControlPlane;
  running: RunningService[];
  clockOrigin: ClockOrigin;
}): Sandbox {
  const { ctx, storage, servers, controlPlane, running } = parts;
  const { url, app, drain } = servers;
  const { options, clock, store } = ctx;
  let stopped: Promise<StopSummary> | null = null;
  const sandbox: Sandbox = {
    url,
    controlUrl: url ? `${url}/__sandbox` : '',
    port: servers.port,
    host: options.host,
    get workspaces() {
      return storage.fixtures.workspaces;
    },
    get defaultWorkspace() {
      const record = defaultWorkspaceOf(ctx);
      return record ? { id: record.id, name: record.name, mode: record.mode } : null;
    },
    context: ctx,
    controlToken: ctx.controlToken,
    clock,
    clockOrigin: parts.clockOrigin,
    events: ctx.bus,
    store,
    app,
    options,
    proxy: null,
    warnings: storage.warnings,
    reset: ctx.reset,
    createWorkspace: (input) => createWorkspaceHandle(ctx, () => url, input),
    report: () => ctx.runReport.build(ctx.routes.routes, ctx.webhooks.outbox.pending().length),
    stop: () =>
      (stopped ??= (async () => {
        // first the requests in flight, while everything they use still runs (src/http/drain.ts);
        // past the deadline the ones left are abandoned: a write they make after store.close() is refused;
        // the proxy first: its replays still use the app and the store
        await sandbox.proxy?.stop();
        const summary = await drain.stop(options.stopTimeoutMs);
        clock.dispose();
        await app.close();
        await controlPlane.close();
        for (const service of running.reverse()) await service.stop();
        await store.close();
        clock.release(); // last: the services' stops may still run in a workspace's scope
        storage.warnings.push(...storage.engine.notes); // the CLI prints what stop added (an edit set aside)
        return summary;
      })()),
  };
  return sandbox;
}
