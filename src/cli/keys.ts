import type { ControlClient, WorkspaceSummary } from '../control/client.ts';
import { orgKeyForms, pickKey } from './lookup.ts';
import { scopeProblem } from '../core/known-scopes.ts';
import { dim, printJson } from './output.ts';
import { plural, say, table } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';

/**
 * `sandbox keys list|create|revoke`: workspace API keys through the control
 * plane (GET /__sandbox/workspaces, POST /workspaces/:id/keys, DELETE /keys/:id).
 */
export interface KeyCreateFlags extends ScriptFlags {
  name?: string;
  scopes?: string;
}

export async function runKeysList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspaces = flags.workspace === undefined ? await client.workspaces() : [await resolveWorkspace(client, flags.workspace)];
  if (flags.json) return printJson(workspaces.map(({ id, name, mode, keys }) => ({ id, name, mode, keys })));
  for (const w of workspaces) {
    say(`${w.name}  ${dim(w.id)}  ${w.mode}  ${plural(w.keys.length, 'key')}`);
    say(
      table(
        ['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATUS'],
        w.keys.map((k) => [k.id, k.name, k.keyPrefix, k.scopes === null ? 'full access' : k.scopes.join(' '), k.status]),
      ),
    );
  }
}

export async function runKeysCreate(flags: KeyCreateFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  const scopes = flags.scopes === undefined ? null : splitList(flags.scopes);
  await checkScopes(client, scopes);
  const created = await client.createKey(workspace.id, { ...(flags.name ? { name: flags.name } : {}), scopes });
  if (flags.json) return printJson(created);
  say(
    [
      `Created ${created.name} ${dim(created.id)} in ${workspace.name} (${scopes === null ? 'full access' : scopes.join(' ')}):`,
      `  ${created.key}`,
      dim('  Store it now: the key is shown only this once.'),
    ].join('\n'),
  );
}

export async function runKeysRevoke(given: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const { key } = findWorkspaceKey(await client.workspaces(), given);
  const revoked = await client.revokeKey(key.id);
  report(flags, revoked, () => `Revoked ${revoked.id} at ${revoked.revokedAt}; the next request with it gets 401`);
}

/** A workspace key by its id, its listing prefix or the key itself (./lookup.ts), with its workspace. */
export function findWorkspaceKey(
  workspaces: readonly WorkspaceSummary[],
  given: string,
): { key: WorkspaceSummary['keys'][number]; workspace: WorkspaceSummary } {
  const key = pickKey(
    workspaces.flatMap((w) => w.keys),
    given,
    'workspace key',
    'sandbox keys list',
  );
  return { key, workspace: workspaces.find((w) => w.keys.includes(key))! };
}

/**
 * Any key, a workspace's or an organization's, by its id, its listing prefix or the key itself
 * (`ratelimit exhaust --key`, `fault add --key`): its id, and the workspace of a workspace key.
 */
export async function findAnyKey(client: ControlClient, given: string): Promise<{ id: string; workspaceId: string | null }> {
  const [workspaces, orgKeys] = await Promise.all([client.workspaces(), client.orgKeys({})]);
  const all = [
    ...workspaces.flatMap((w) => w.keys.map((k) => ({ id: k.id, key: k.key, keyPrefix: k.keyPrefix, workspaceId: w.id as string | null }))),
    ...orgKeys.flatMap((k) => orgKeyForms({ id: k.id, keyPrefix: k.keyPrefix, workspaceId: null as string | null })),
  ];
  const { id, workspaceId } = pickKey(all, given, 'key', 'sandbox keys list` or `sandbox org-keys list');
  return { id, workspaceId };
}

export function splitList(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}

/**
 * --scopes of keys create and org-keys create: a scope that is not
 * `<resource>:<action>`, or names a resource or action the API does not have,
 * would grant nothing; it is refused with one line that lists the known ones.
 */
export async function checkScopes(client: ControlClient, scopes: readonly string[] | null): Promise<void> {
  if (!scopes?.length) return;
  const known = await client.scopes();
  for (const scope of scopes) {
    const problem = scopeProblem(scope, known);
    if (problem) throw new Error(`--scopes: ${problem}`);
  }
}
