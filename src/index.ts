/**
 * The programmatic API (docs/configuration.md). The CLI, the dashboard,
 * scenarios and tests all build on createSandbox. Everything exported here is
 * public and has its declarations in dist/index.d.ts.
 */
import type { SandboxOptions } from './config.ts';
import type { Sandbox } from './sandbox.ts';

export type { Sandbox } from './sandbox.ts';
export { SandboxError } from './assembly/sandbox-error.ts';

/**
 * The product: one Fastify app over one store, one clock and one event bus (src/sandbox.ts).
 * Its code loads at the first call, not with this module: a test worker that only takes its
 * workspace (`workerSandbox`) or talks to a running sandbox (`ControlClient`) does not load the
 * server (about 0.15 s of CPU per worker, more in a test runner's module loader).
 */
export async function createSandbox(input: SandboxOptions = {}): Promise<Sandbox> {
  const { createSandbox: create } = await import('./sandbox.ts');
  return create(input);
}
export type { StopSummary } from './http/drain.ts';
export type { SandboxOptions, ResolvedOptions } from './config.ts';
export type { FixtureWorkspaceView as SandboxWorkspace } from './fixtures/fixture-workspaces.ts';
export { Clock, type ClockState, type WorkspaceClockState } from './core/clock.ts';
export type { ClockOrigin } from './core/saved-clock.ts';
export type { DomainEvent, RequestLogEntry } from './core/events.ts';
export {
  ControlClient,
  ControlPlaneError,
  SandboxNotRunningError,
  DEFAULT_CONTROL_URL,
  CONTROL_ROUTES,
  type ControlClientOptions,
  type WorkspaceSummary,
  type DeliverySummary,
  type DeliveryAttemptSummary,
  type SubscriptionSummary,
  type CreatedWorkspaceKey,
  type OrganizationSummary,
  type OrgKeySummary,
  type CreateOrgKeyInput,
  type FaultRuleSummary,
  type FaultRuleInput,
  type RateBucketSummary,
  type SnapshotSummary,
  type SeedResult,
  type RequestLogLine,
  type RunReport,
  type HealthState,
  type VerificationSummary,
  type StreamEvent,
} from './control/client.ts';
export type { WorkspaceHandle } from './workspaces/handle.ts';
export type { CreateWorkspaceInput, CreatedKey } from './workspaces/manager.ts';
export { workerSandbox, type WorkerSandbox, type WorkerSandboxOptions } from './control/worker-sandbox.ts';
