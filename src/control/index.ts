import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { registerFaultRoutes } from './faults.ts';
import { registerObserveRoutes } from './observe.ts';
import { registerOrgKeyControl } from '../resources/organizations/control.ts';
import { registerPeopleControl } from '../resources/people/control.ts';
import { registerRateLimitRoutes } from './rate-limits.ts';
import { registerSeedControl } from './seed.ts';
import { registerControlPlane } from './routes.ts';
import { registerDeliveryControl } from '../resources/webhooks/control-deliveries.ts';
import { registerEventControl } from '../resources/webhooks/control-events.ts';
import { registerSnapshotRoutes } from './snapshots.ts';
import { registerVerificationControl } from '../resources/verification/control.ts';
import { registerControlIndex } from './where.ts';
import { registerWorkspaceRoutes } from './workspaces.ts';

/**
 * Every group of control-plane routes, in one explicit list. Each registers
 * under /__sandbox; bodies are wrapped in `data` (docs/control-plane.md).
 */
export type ControlModule = (app: ZodApp, ctx: SandboxContext) => void;

export const CONTROL_MODULES: readonly ControlModule[] = [registerControlPlane, registerFaultRoutes, registerRateLimitRoutes, registerSnapshotRoutes, registerObserveRoutes, registerVerificationControl, registerDeliveryControl, registerEventControl, registerPeopleControl, registerOrgKeyControl, registerSeedControl, registerWorkspaceRoutes, registerControlIndex];
