import type { SandboxContext } from '../context.ts';
import { RESOURCES } from '../resources/index.ts';
import type { ZodApp } from '../resources/types.ts';
import { registerFaultRoutes } from './faults.ts';
import { registerObserveRoutes } from './observe.ts';
import { registerRateLimitRoutes } from './rate-limits.ts';
import { registerSeedControl } from './seed.ts';
import { registerControlPlane } from './routes.ts';
import { registerSnapshotRoutes } from './snapshots.ts';
import { registerWorkspaceRoutes } from './workspaces.ts';

/**
 * Every group of control-plane routes, in one explicit list: the control
 * plane's own, then each API area's part (`control` of its ResourceModule, in
 * the order of resources/index.ts). Each registers under /__sandbox from the
 * route table of ./contracts/; bodies are wrapped in `data` (docs/control-plane.md).
 */
export type ControlModule = (app: ZodApp, ctx: SandboxContext) => void;

export const CONTROL_MODULES: readonly ControlModule[] = [
  registerControlPlane,
  registerFaultRoutes,
  registerRateLimitRoutes,
  registerSnapshotRoutes,
  registerObserveRoutes,
  registerSeedControl,
  registerWorkspaceRoutes,
  ...RESOURCES.flatMap((area) => (area.control ? [area.control] : [])),
];
