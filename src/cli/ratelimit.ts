import type { ControlClient, RateBucketSummary } from '../control/client.ts';
import { findAnyKey } from './keys.ts';
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
  if (flags.window !== undefined && flags.window !== 'burst' && flags.window !== 'minute')
    throw new Error(`--window must be burst or minute (default: both), not "${flags.window}"`);
  const client = await controlClient(flags);
  const workspaces = await client.workspaces();
  const target = flags.key ? await keyTarget(client, flags.key) : { workspaceId: (await resolveWorkspace(client, flags.workspace)).id };
  const window = flags.window as 'burst' | 'minute' | undefined; // checked above
  const [buckets, clock] = await Promise.all([client.exhaustRateLimit(target, window), client.clock()]);
  const bucket = buckets.find((b) => b.id === ('keyId' in target ? target.keyId : target.workspaceId));
  if (flags.json) return printJson(bucket ?? null);
  if (!bucket) return say(`Exhausted ${JSON.stringify(target)}: the next request gets 429`);
  const who = bucket.kind === 'workspace' ? (workspaces.find((w) => w.id === bucket.id)?.name ?? bucket.id) : `organization key ${bucket.id}`;
  say(exhaustedLine(bucket, who, clock.nowMs, window));
}

/**
 * Which windows were emptied and until when: the minute window is aligned to the
 * clock's minute, so it refills at the next whole minute, which may be seconds away.
 */
export function exhaustedLine(bucket: RateBucketSummary, who: string, nowMs: number, window?: 'burst' | 'minute'): string {
  const burst = `its burst (${bucket.burst})`;
  // --window burst: one token comes back within a second; the minute window is untouched
  if (window === 'burst')
    return `Emptied ${who}'s burst (${bucket.burst}): the next request gets 429 until a token comes back (${bucket.remaining} of the minute's ${bucket.limit} requests left)`;
  if (window === 'minute' && bucket.reset !== null) {
    const inSeconds = Math.max(0, Math.ceil((bucket.reset * 1000 - nowMs) / 1000));
    return `Emptied ${who}'s minute window (${bucket.limit} requests), not its burst: requests get 429 until the window refills at ${new Date(bucket.reset * 1000).toISOString()}, in ${inSeconds} s of sandbox time`;
  }
  if (bucket.reset === null) return `Emptied ${who}'s minute window (${bucket.limit} requests) and ${burst}: the next request gets 429`;
  const inSeconds = Math.max(0, Math.ceil((bucket.reset * 1000 - nowMs) / 1000));
  return `Emptied ${who}'s minute window (${bucket.limit} requests) and ${burst}: requests get 429 until the window refills at ${new Date(bucket.reset * 1000).toISOString()}, in ${inSeconds} s of sandbox time`;
}

/** --key: an organization key's own bucket, or a workspace key's workspace (a workspace key has none of its own). */
async function keyTarget(client: ControlClient, given: string): Promise<{ keyId: string } | { workspaceId: string }> {
  const key = await findAnyKey(client, given);
  return key.workspaceId === null ? { keyId: key.id } : { workspaceId: key.workspaceId };
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
