import { pickWorkspace } from './workspace-names.ts';

/** What the rule reads of a workspace: the control plane's listing and the fixtures' both have it. */
export interface DefaultCandidate {
  id: string;
  name: string;
  mode: 'live' | 'sandbox';
  /** made by POST /__sandbox/workspaces (a fixture workspace has none, or false) */
  created?: boolean;
}

/** The variable that names the default: for `sandbox start`, its --default-workspace; for a client command, an override. */
export const DEFAULT_WORKSPACE_ENV = 'SANDBOX_WORKSPACE';

/**
 * The sandbox's default workspace: where every door works when it is not told which workspace
 * (the CLI's --workspace, MCP's `workspace`, the inspector's first view, the dashboard's keys,
 * `listen`, `trigger`, `exec`'s SANDBOX_API_KEY). One rule, here, for the server and the CLI:
 *
 * - `choice` (createSandbox's `defaultWorkspace`, `sandbox start --default-workspace`,
 *   $SANDBOX_WORKSPACE) names it as --workspace does: an id, a name, or an unambiguous part of a name;
 * - without it, the first sandbox-mode fixture workspace: the workspace of the key the README and
 *   `sandbox exec` hand out (Borealis Adventures in the bundled fixtures). Its rate limits are the
 *   sandbox tier's (API description, "Rate limits"), the tier a customer's tests run against;
 * - with no sandbox-mode fixture, the first fixture workspace, else the first workspace.
 *
 * A choice that names no workspace, or several, throws the one line pickWorkspace writes, opened
 * by `subject`.
 */
export function defaultWorkspace<T extends DefaultCandidate>(workspaces: readonly T[], choice?: string, subject = `the default workspace "${choice}"`): T {
  if (choice !== undefined && choice.trim() !== '') return pickWorkspace(workspaces, choice, subject);
  const fixtures = workspaces.filter((w) => !w.created);
  const chosen = fixtures.find((w) => w.mode === 'sandbox') ?? fixtures[0] ?? workspaces[0];
  if (!chosen) throw new Error('the sandbox has no workspace');
  return chosen;
}

/**
 * The default among `workspaces` where the choice may not be one of them (a workspace that has
 * gone since the start checked it, or a created one where only fixtures may serve, as a template
 * does): the one `choice` names, else the rule's. Undefined for no workspace at all.
 */
export function defaultWorkspaceOrRule<T extends DefaultCandidate>(workspaces: readonly T[], choice?: string): T | undefined {
  if (workspaces.length === 0) return undefined;
  if (choice !== undefined) {
    try {
      return defaultWorkspace(workspaces, choice);
    } catch {
      // named none of them, or several: the rule decides
    }
  }
  return defaultWorkspace(workspaces);
}
