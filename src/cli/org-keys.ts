import type { ControlClient, OrganizationSummary } from '../control/client.ts';
import { dim, printJson } from './output.ts';
import { say, table } from './format.ts';
import { splitList, checkScopes } from './keys.ts';
import { orgKeyForms, pickKey } from './lookup.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';

/**
 * `sandbox org-keys list|create|revoke`: partner organization keys through
 * the control plane (GET /__sandbox/org-keys, POST /organizations/:id/api-keys,
 * DELETE /org-keys/:id); the body is that of POST /v1/organizations/:id/api-keys.
 */
export interface OrgKeyCreateFlags extends ScriptFlags {
  org?: string;
  scopes?: string;
  products?: string;
  expiresAt?: string;
  rps?: number;
  rpm?: number;
  burst?: number;
}

export async function runOrgKeysList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const keys = await client.orgKeys(workspaceId === undefined ? {} : { workspaceId });
  if (flags.json) return printJson(keys);
  if (keys.length === 0) return say('No organization keys yet; create one with `sandbox org-keys create`');
  say(
    table(
      ['ID', 'ORGANIZATION', 'PREFIX', 'SCOPES', 'PRODUCTS', 'LIMITS', 'STATUS', 'EXPIRES'],
      keys.map((k) => [
        k.id,
        k.organizationName,
        k.keyPrefix,
        k.scopes.join(' ') || '(none)',
        k.productIds.length === 0 ? 'all' : String(k.productIds.length),
        `${k.rateLimitPolicy.rps}/s ${k.rateLimitPolicy.rpm}/min`,
        k.status,
        k.expiresAt ?? 'never',
      ]),
    ),
  );
}

export async function runOrgKeysCreate(flags: OrgKeyCreateFlags): Promise<void> {
  const client = await controlClient(flags);
  const org = await resolveOrganization(client, flags);
  const policy = [flags.rps, flags.rpm, flags.burst];
  if (policy.some((v) => v !== undefined) && policy.some((v) => v === undefined))
    throw new Error('--rps, --rpm and --burst go together (the rate-limit policy has all three)');
  const scopes = flags.scopes === undefined ? [] : splitList(flags.scopes);
  await checkScopes(client, scopes);
  const created = await client.createOrgKey(org.id, {
    scopes,
    ...(flags.products !== undefined ? { productIds: splitList(flags.products) } : {}),
    ...(flags.expiresAt !== undefined ? { expiresAt: flags.expiresAt } : {}),
    ...(flags.rps !== undefined ? { rateLimitPolicy: { rps: flags.rps, rpm: flags.rpm!, burst: flags.burst! } } : {}),
  });
  if (flags.json) return printJson(created);
  say(
    [
      `Created ${dim(created.id)} for ${org.name} (${created.scopes.join(' ') || 'no scopes'}; ${created.rateLimitPolicy.rps}/s, ${created.rateLimitPolicy.rpm}/min):`,
      `  ${created.key}`,
      dim('  Store it now: the key is shown only this once.'),
    ].join('\n'),
  );
}

export async function runOrgKeysRevoke(given: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const key = pickKey((await client.orgKeys({})).flatMap(orgKeyForms), given, 'organization key', 'sandbox org-keys list');
  const revoked = await client.revokeOrgKey(key.id);
  report(flags, revoked, () => `Revoked ${revoked.id} at ${revoked.revokedAt} (by ${revoked.revokedBy})`);
}

/**
 * --org takes an id, slug or name, looked for in --workspace or else in every workspace; without
 * it, the first organization of --workspace, else of the sandbox's default workspace.
 */
async function resolveOrganization(client: ControlClient, flags: OrgKeyCreateFlags): Promise<OrganizationSummary> {
  const inOne = flags.workspace !== undefined || flags.org === undefined;
  const workspaceId = inOne ? (await resolveWorkspace(client, flags.workspace)).id : undefined;
  const orgs = await client.organizations(workspaceId === undefined ? {} : { workspaceId });
  const given = flags.org?.toLowerCase();
  const found = given === undefined ? orgs[0] : orgs.find((o) => o.id === flags.org || o.slug === given || o.name.toLowerCase() === given);
  if (!found) throw new Error(`no organization "${flags.org ?? ''}"; known: ${orgs.map((o) => `${o.name} (${o.id})`).join(', ') || 'none'}`);
  return found;
}
