import type { ControlClient, WorkspaceSummary } from '../control/client.ts';
import { resolveWorkspace } from './control.ts';

/**
 * `listen` and `trigger` without --workspace: the workspace of the README's key, the one
 * sandbox-mode workspace of the fixtures (issue 37: the first workspace was Aurora, live, so a booking made with the README's
 * key was never forwarded). Several of them (fixtures of one's own): refused, naming them; none:
 * the only workspace there is, else refused.
 */
export function defaultWebhookWorkspace(workspaces: readonly WorkspaceSummary[]): WorkspaceSummary {
  const fixtures = workspaces.filter((w) => !w.created);
  const sandboxMode = fixtures.filter((w) => w.mode === 'sandbox');
  if (sandboxMode.length === 1) return sandboxMode[0]!;
  if (sandboxMode.length === 0 && fixtures.length === 1) return fixtures[0]!;
  const candidates = (sandboxMode.length > 0 ? sandboxMode : fixtures).map((w) => `"${w.name}" (${w.id})`).join(', ');
  throw new Error(
    `which workspace? ${sandboxMode.length > 0 ? 'several are in sandbox mode' : 'none is in sandbox mode'}: ${candidates}; choose one with --workspace`,
  );
}

/** --workspace when given (resolved as every command does), else the default above. */
export async function webhookWorkspace(client: ControlClient, given: string | undefined): Promise<WorkspaceSummary> {
  return given === undefined ? defaultWebhookWorkspace(await client.workspaces()) : resolveWorkspace(client, given);
}
