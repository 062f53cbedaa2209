import type { WorkspaceSummary } from '../control/client.ts';
import { dim, printJson } from './output.ts';
import { parseAdvance } from './duration.ts';
import { say, table } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';
import { pickWorkspace } from './lookup.ts';

/**
 * `sandbox workspace create|list|delete|reset|advance`: workspaces on demand,
 * one per parallel test worker (POST/DELETE /__sandbox/workspaces,
 * POST /workspaces/:id/reset, POST /workspaces/:id/clock/advance).
 */
export interface WorkspaceCreateFlags extends ScriptFlags {
  template?: string;
  mode?: string;
  name?: string;
  rateLimits?: string;
}

export async function runWorkspaceCreate(flags: WorkspaceCreateFlags): Promise<void> {
  if (flags.mode !== undefined && flags.mode !== 'live' && flags.mode !== 'sandbox') throw new Error(`--mode must be live or sandbox, not "${flags.mode}"`);
  const mode = flags.mode as 'live' | 'sandbox' | undefined; // checked above
  if (flags.rateLimits !== undefined && flags.rateLimits !== 'enforce' && flags.rateLimits !== 'report')
    throw new Error(`--rate-limits must be enforce or report, not "${flags.rateLimits}"`);
  const rateLimits = flags.rateLimits as 'enforce' | 'report' | undefined; // checked above
  const client = await controlClient(flags);
  // --template as --workspace: an id, a name or an unambiguous part of one, among the fixture workspaces
  const template =
    flags.template === undefined
      ? undefined
      : pickWorkspace(
          (await client.workspaces()).filter((w) => !w.created),
          flags.template,
        ).id;
  const body = {
    ...(template ? { template } : {}),
    ...(mode ? { mode } : {}),
    ...(flags.name ? { name: flags.name } : {}),
    ...(rateLimits ? { rateLimits } : {}),
  };
  const created = await client.createWorkspace(body);
  if (flags.json) return printJson(created);
  say(
    [
      `Created ${created.name} ${dim(created.id)} (${created.mode}, rate limits: ${created.rateLimits}, from ${created.templateId}):`,
      // the id beside the key: `keys revoke` and `ratelimit exhaust --key` take it
      ...created.keys.map((k) => `  ${k.key}  ${k.id}  ${dim(k.scopes === null ? 'full access' : k.scopes.join(' '))}`),
      dim('  Store the keys now: they are shown only this once.'),
    ].join('\n'),
  );
}

export async function runWorkspaceList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspaces: WorkspaceSummary[] = await client.workspaces();
  if (flags.json)
    return printJson(
      workspaces.map(({ id, name, mode, created, templateId, default: isDefault }) => ({
        id,
        name,
        mode,
        created: created ?? false,
        templateId: templateId ?? null,
        default: isDefault,
      })),
    );
  say(
    table(
      ['ID', 'NAME', 'MODE', 'KIND'],
      workspaces.map((w) => [w.id, w.name, w.mode, `${w.created ? `created from ${w.templateId}` : 'fixture'}${w.default ? ', default' : ''}`]),
    ),
  );
}

export async function runWorkspaceDelete(given: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, given);
  const deleted = await client.deleteWorkspace(workspace.id);
  report(flags, deleted, () => `Deleted ${workspace.name} ${dim(workspace.id)} and everything in it`);
}

export async function runWorkspaceReset(given: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, given);
  const reset = await client.resetWorkspace(workspace.id);
  report(flags, reset, () => `Reset ${workspace.name} to its template in ${reset.ms} ms`);
}

export async function runWorkspaceAdvance(given: string, duration: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, given);
  const state = await client.advanceWorkspaceClock(workspace.id, parseAdvance(duration, 'workspace advance'));
  report(flags, state, () => `${workspace.name}: ${state.now} (${state.offsetMs} ms ahead of the sandbox clock)`);
}
