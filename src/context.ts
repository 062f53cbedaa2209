import type { ParityRecorder } from './parity/types.ts';
import type { FastifyInstance } from 'fastify';
import type { Auth, Principal } from './core/auth.ts';
import type { Clock } from './core/clock.ts';
import type { FaultInjector } from './core/faults.ts';
import type { RequestLog } from './core/request-log.ts';
import type { EventBus } from './core/events.ts';
import type { Idempotency } from './core/idempotency.ts';
import type { RateDecision, RateLimiter } from './core/rate-limit.ts';
import type { ResolvedOptions } from './config.ts';
import type { SelfGuard } from './core/self-guard.ts';
import type { CollectionRegistry, Collections, InitialCollections, ReplaceOptions, Store } from './storage/index.ts';
import type { FixtureWorkspaceView as FixtureWorkspace } from './fixtures/fixture-workspaces.ts';
import type { RouteCatalog } from './core/route-catalog.ts';
import type { RunReportCounters } from './report/run-report.ts';
import type { WorkspaceManager } from './workspaces/manager.ts';
import type { Suspension } from './core/suspension.ts';
import type { WebhookDispatcher } from './webhooks/dispatcher.ts';

/** Everything a resource, the control plane or a hook may use. Built once by createSandbox. */
export interface SandboxContext {
  options: ResolvedOptions;
  /** when createSandbox ran (Date.now()): the health check's uptime */
  startedAtMs: number;
  store: Store;
  clock: Clock;
  bus: EventBus;
  auth: Auth;
  rateLimiter: RateLimiter;
  idempotency: Idempotency;
  routes: RouteCatalog;
  /** the fixture workspaces with their documented plain keys */
  fixtureWorkspaces: () => readonly FixtureWorkspace[];
  /** plain keys created through the control plane in this process (shown once) */
  controlToken: string | null;
  reset: () => Promise<void>;
  /** re-reads the fixture files and re-seeds the catalog they define, keeping runtime data */
  reloadFixtures: () => Promise<void>;
  /** replaces the whole state (snapshot restore, reset) and lets services reschedule; the rows are trusted */
  replaceState: (collections: InitialCollections, options?: ReplaceOptions) => Promise<void>;
  /**
   * replaces the whole state with one from outside (PUT /__sandbox/state, a hand-edited database file
   * under --watch) after checking every collection, row and id (control/state-import.ts); the first
   * problem throws a StateImportError whose message is one line, and nothing changes
   */
  importState: (collections: Collections, options?: ReplaceOptions) => Promise<void>;
  faults: FaultInjector;
  /** refuses webhook URLs that aim at the sandbox itself (docs/webhooks.md) */
  selfGuard: SelfGuard;
  requestLog: RequestLog;
  /** running counts of every /v1 request, warning, refusal and delivery: the run report (docs/cli.md, "The run report") */
  runReport: RunReportCounters;
  /** workspaces on demand: create, delete, per-workspace reset and snapshots (src/workspaces/) */
  workspaces: WorkspaceManager;
  /** emulated suspension after repeated 429s, off by default (src/core/suspension.ts) */
  suspension: Suspension;
  /** webhook deliveries: the outbox, replay, idle (src/webhooks/dispatcher.ts), run by the webhooks service */
  webhooks: WebhookDispatcher;
  /** every stored collection of this sandbox, derived from its resource modules (src/resources/index.ts) */
  collections: CollectionRegistry;
  /** the /__sandbox app, built on first use (src/http/control-forward.ts) */
  controlPlane: ControlPlane;
  /**
   * POST /__sandbox/stop calls `handler`: the stop of the process that owns the sandbox (`sandbox
   * start` puts its SIGTERM path here). Null by default: a createSandbox() caller stops its own.
   */
  stopRequest: { handler: (() => void) | null };
  /**
   * Set by `sandbox open` (src/bundle/open.ts): the sandbox serves a bundle, and refuses /v1 and every
   * control-plane write with this sentence (src/core/read-only.ts). Null: a sandbox like any other
   */
  readOnly: { reason: string | null };
  /** the parity proxy's differences when the sandbox runs as `sandbox proxy` (src/parity/, docs/parity.md), else null */
  parity: { recorder: ParityRecorder | null };
}

/** The control plane's app is built on its first request; `ready()` builds it now (the route catalog then lists its routes). */
export interface ControlPlane {
  app(): Promise<FastifyInstance>;
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A background service (webhook dispatcher, gallery deletion jobs, ...),
 * declared by its area (ResourceModule.services). Each starts after the store
 * is open and before the server listens, and is stopped before the store
 * closes. They schedule work on the sandbox clock, never on timers of their
 * own, and react to the event bus.
 */
export interface BackgroundService {
  name: string;
  start(ctx: SandboxContext): Promise<RunningService> | RunningService;
}

export interface RunningService {
  stop(): Promise<void> | void;
  /** called after a reset or snapshot restore replaced the store's state */
  afterReset?(): Promise<void> | void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The authenticated caller. Set only by the /v1 scope's auth hook; route
     * handlers of /v1 can rely on it, and a read anywhere else throws a 401.
     */
    readonly principal: Principal;
    /** the caller when authenticated, else null (for hooks that see every request) */
    authenticated: Principal | null;
    /** the plugin scope the router matched: the only classification of a request (docs/architecture.md) */
    area: 'api' | 'control' | 'other';
    rate: RateDecision | null;
    idempotencyKey: string | null;
    startedAt: number;
    /** why the sandbox refused it (X-Sandbox-Reason, docs/api-notes.md "Reasons"), set by sendApiError; null when it did not */
    reason: string | null;
  }
  interface FastifyContextConfig {
    /** the scope a key needs for this route (API description, "Authentication" 4-5) */
    scope?: string;
    /** the API description leaves this operation "not shown"; the sandbox designed it */
    inferred?: boolean;
    /**
     * The statuses the API description states for this operation (success and
     * route-specific errors). Any other status the route declares is marked
     * x-sandbox-inferred in the OpenAPI document.
     */
    documentedStatuses?: readonly number[];
    /** the description states this route's scope ("Authentication" 5); otherwise it is inferred */
    documentedScope?: boolean;
    summary?: string;
    /** the OpenAPI operationId, when the derived one (src/http/openapi-names.ts) reads badly */
    operationId?: string;
  }
}
