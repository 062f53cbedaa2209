/** The programmatic API. The CLI, the dashboard, scenarios and tests all build on createSandbox. */
export { createSandbox, SandboxError, type Sandbox } from './sandbox.ts';
export type { SandboxOptions, ResolvedOptions } from './config.ts';
export { Clock, type ClockState, type WorkspaceClockState } from './core/clock.ts';
export type { DomainEvent, RequestLogEntry } from './core/events.ts';
export type { WorkspaceHandle } from './workspaces/handle.ts';
export type { CreateWorkspaceInput, CreatedKey } from './workspaces/manager.ts';
