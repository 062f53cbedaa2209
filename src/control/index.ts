import type { SandboxContext } from '../context.ts';
import type { ResourceModule, ZodApp } from '../resources/types.ts';
import { registerFaultRoutes } from './faults.ts';
import { registerObserveRoutes } from './observe.ts';
import { registerRateLimitRoutes } from './rate-limits.ts';
import { registerSeedControl } from './seed.ts';
import { registerControlPlane } from './routes.ts';
import { registerEventControl } from './events.ts';
import { registerSnapshotRoutes } from './snapshots.ts';
import { registerControlIndex } from './where.ts';
import { registerWorkspaceRoutes } from './workspaces.ts';

/**
 * Every group of control-plane routes that belongs to no API area, in one
 * explicit list; the areas' own parts (organization keys, deliveries,
 * verifications, people) come from their ResourceModule.control. Each
 * registers under /__sandbox; bodies are wrapped in `data` (docs/control-plane.md).
 */
export type ControlModule = (app: ZodApp, ctx: SandboxContext) => void;

export const CONTROL_MODULES: readonly ControlModule[] = [registerControlPlane, registerFaultRoutes, registerRateLimitRoutes, registerSnapshotRoutes, registerObserveRoutes, registerEventControl, registerSeedControl, registerWorkspaceRoutes, registerControlIndex];

/** The whole control plane: the groups above, then each area's part. */
export function registerControl(app: ZodApp, ctx: SandboxContext, resources: readonly ResourceModule[]): void {
  for (const register of CONTROL_MODULES) register(app, ctx);
  for (const resource of resources) resource.control?.(app, ctx);
}
