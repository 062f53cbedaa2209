import type { RateBucketSummary } from '../control/client.ts';
import { printJson } from './output.ts';
import { say, table } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';

/**
 * `sandbox ratelimit show|exhaust|mode`: the rate-limit buckets
 * (GET /__sandbox/rate-limits, POST /rate-limits/exhaust, POST /workspaces/:id/mode).
 * Workspace keys share their workspace's bucket; organization keys have their own.
 */
export interface ExhaustFlags extends ScriptFlags {
  key?: string;
  window?: string;
}

export async function runRateLimitShow(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const [buckets, workspaces] = await Promise.all([client.rateLimits({ workspaceId }), client.workspaces()]);
  if (flags.json) return printJson(buckets);
  const names = new Map(workspaces.map((w) => [w.id, w.name]));
  say(bucketTable(buckets, names));
}

export async function runRateLimitExhaust(flags: ExhaustFlags): Promise<void> {
  if (flags.key && flags.workspace) throw new Error('name --workspace or --key, not both');
  if (flags.window !== undefined && flags.window !== 'burst' && flags.window !== 'minute') throw new Error(`--window must be burst or minute (default: both), not "${flags.window}"`);
  const client = await controlClient(flags);
  const workspaces = await client.workspaces();
  // a workspace key has no bucket of its own: exhausting it means exhausting its workspace
  const owner = flags.key ? workspaces.find((w) => w.keys.some((k) => k.id === flags.key)) : undefined;
  const target = flags.key && !owner
    ? { keyId: flags.key }
    : { workspaceId: owner?.id ?? (await resolveWorkspace(client, flags.workspace)).id };
  const buckets = await client.exhaustRateLimit(target, flags.window as 'burst' | 'minute' | undefined);
  const bucket = buckets.find((b) => b.id === ('keyId' in target ? target.keyId : target.workspaceId));
  if (flags.json) return printJson(bucket ?? null);
  say(`Exhausted ${bucket?.bucket ?? JSON.stringify(target)}: the next request gets 429${bucket?.reset ? `; the window resets at ${new Date(bucket.reset * 1000).toISOString()}` : ''}`);
}

export async function runRateLimitMode(mode: string, flags: ScriptFlags): Promise<void> {
  if (mode !== 'live' && mode !== 'sandbox') throw new Error(`mode must be live or sandbox, not "${mode}"`);
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  const updated = await client.setWorkspaceMode(workspace.id, mode);
  if (flags.json) return printJson({ id: updated.id, name: updated.name, mode: updated.mode });
  say(`${updated.name} now has ${updated.mode} rate limits`);
}

function bucketTable(buckets: readonly RateBucketSummary[], names: ReadonlyMap<string, string>): string {
  return table(
    ['ID', 'WHO', 'MINUTE', 'BURST', 'PER SECOND', 'RESETS'],
    buckets.map((b) => [
      b.id,
      b.kind === 'workspace' ? (names.get(b.id) ?? 'workspace') : 'organization key',
      `${b.remaining}/${b.limit} left`,
      `${b.burstTokens}/${b.burst}`,
      b.perSecond === null ? '-' : String(b.perSecond),
      b.reset === null ? 'not used yet' : new Date(b.reset * 1000).toISOString(),
    ]),
  );
}
