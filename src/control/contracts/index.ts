import { DEPARTURE_CONTROL_ROUTES } from '../../resources/departures/control-contract.ts';
import { ORG_KEY_CONTROL_ROUTES } from '../../resources/organizations/control-contract.ts';
import { PEOPLE_CONTROL_ROUTES } from '../../resources/people/control-contract.ts';
import { VERIFICATION_CONTROL_ROUTES } from '../../resources/verification/control-contract.ts';
import { WEBHOOK_CONTROL_ROUTES } from '../../resources/webhooks/control-contract.ts';
import { DATA_ROUTES } from './data.ts';
import { FAULT_ROUTES } from './faults.ts';
import { HEALTH_ROUTES } from './health.ts';
import { OBSERVE_ROUTES } from './observe.ts';
import { PARITY_ROUTES } from './parity.ts';
import { PLANE_ROUTES } from './plane.ts';
import { RATE_LIMIT_ROUTES } from './rate-limits.ts';
import { REPORT_ROUTES } from './report.ts';
import { SEED_ROUTES } from './seed.ts';
import { SNAPSHOT_ROUTES } from './snapshots.ts';
import { WORKSPACE_ROUTES } from './workspaces.ts';

/**
 * Every control-plane route, by name: the one route table
 * that the server registers from and the typed client (../client.ts) calls
 * through. Schemas only: the client loads this without any server code. The
 * areas' parts live in their folders (`resources/<area>/control-contract.ts`);
 * a test checks that every registered control route is in this table.
 */
export const CONTROL_ROUTES = {
  ...HEALTH_ROUTES,
  ...PLANE_ROUTES,
  ...WORKSPACE_ROUTES,
  ...FAULT_ROUTES,
  ...RATE_LIMIT_ROUTES,
  ...SNAPSHOT_ROUTES,
  ...OBSERVE_ROUTES,
  ...REPORT_ROUTES,
  ...PARITY_ROUTES,
  ...SEED_ROUTES,
  ...DATA_ROUTES,
  ...DEPARTURE_CONTROL_ROUTES,
  ...ORG_KEY_CONTROL_ROUTES,
  ...PEOPLE_CONTROL_ROUTES,
  ...VERIFICATION_CONTROL_ROUTES,
  ...WEBHOOK_CONTROL_ROUTES,
};
export type ControlRoutes = typeof CONTROL_ROUTES;
export type ControlRouteName = keyof ControlRoutes;
