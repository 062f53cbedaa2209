import type { ControlClient, WorkspaceSummary } from '../control/client.ts';
import { resolveWorkspace } from './control.ts';

/**
 * `listen` and `trigger`: --workspace when given, else the sandbox's default workspace, as every
 * command reads them (resolveWorkspace): the workspace of the README's key unless the sandbox or
 * $SANDBOX_WORKSPACE names another, so a booking made with that key is the one forwarded.
 */
export async function webhookWorkspace(client: ControlClient, given: string | undefined): Promise<WorkspaceSummary> {
  return resolveWorkspace(client, given);
}
