import type { SandboxContext } from '../context.ts';
import type { ResourceModule, ZodApp } from '../resources/types.ts';
import { registerDataRoutes } from './data.ts';
import { registerFaultRoutes } from './faults.ts';
import { registerInspectorRoutes } from './inspector.ts';
import { registerObserveRoutes } from './observe.ts';
import { registerParityRoutes } from './parity.ts';
import { registerRateLimitRoutes } from './rate-limits.ts';
import { registerReportRoutes } from './report.ts';
import { registerSeedControl } from './seed.ts';
import { registerControlPlane } from './routes.ts';
import { registerSnapshotRoutes } from './snapshots.ts';
import { registerWorkspaceRoutes } from './workspaces.ts';

/**
 * Every group of control-plane routes that belongs to no API area, in one
 * explicit list; registerControl adds each API area's part after them
 * (`control` of its ResourceModule, in the order of the sandbox's area list).
 * Each registers under /__sandbox from the route table of ./contracts/;
 * bodies are wrapped in `data` (docs/control-plane.md).
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
  registerReportRoutes,
  registerParityRoutes,
  registerDataRoutes,
  registerInspectorRoutes,
];

/** The whole control plane: the groups above, then each area's part (loaded now). */
export async function registerControl(app: ZodApp, ctx: SandboxContext, resources: readonly ResourceModule[]): Promise<void> {
  const parts = await Promise.all(resources.map((resource) => resource.control?.()));
  for (const register of CONTROL_MODULES) register(app, ctx);
  for (const register of parts) register?.(app, ctx);
}
