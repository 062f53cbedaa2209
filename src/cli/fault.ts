import type { FaultRuleInput, FaultRuleSummary, WorkspaceSummary } from '../control/client.ts';
import { formatDuration } from '../core/duration.ts';
import { WORKSPACE_LIMITS } from '../core/rate-limit.ts';
import { dim, printJson } from './output.ts';
import { plural, say, table } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';
import { findAnyKey } from './keys.ts';
import { deliveryEffect, deliveryMatches, deliveryRule, misplacedFlags, type DeliveryFaultFlags } from './fault-delivery.ts';

/**
 * `sandbox fault add|list|clear`: fault injection rules (POST/GET/DELETE
 * /__sandbox/faults). A rule answers a status and body, adds latency or drops
 * the connection, for the next N matching /v1 requests or with a probability.
 */
export interface FaultAddFlags extends ScriptFlags, DeliveryFaultFlags {
  times?: number;
  probability?: number;
  seed?: number;
}

/** A request rule's latency is real time (MAX_REQUEST_LATENCY_MS of src/core/fault-rule.ts). */
const MAX_REQUEST_LATENCY_MS = 120_000;

export async function runFaultAdd(flags: FaultAddFlags): Promise<void> {
  if (flags.delivery) return addDeliveryFault(flags);
  const misplaced = misplacedFlags(flags);
  if (misplaced) throw new Error(misplaced);
  if ((flags.latency ?? 0) > MAX_REQUEST_LATENCY_MS)
    throw new Error(`--latency takes a duration from 0 to 2m; "${formatDuration(flags.latency!)}" is more (a --delivery rule's is sandbox time, up to 7d)`);
  // said in the flags the user typed, before the control plane's words for them (status, latencyMs, drop)
  if (flags.status === undefined && flags.latency === undefined && !flags.drop) {
    throw new Error('fault add needs what the rule does: --status <code>, --latency <duration> or --drop');
  }
  if (flags.drop && flags.status !== undefined) throw new Error('--drop and --status exclude each other: a dropped connection answers no status');
  const client = await controlClient(flags);
  const target = flags.workspace ? await resolveWorkspace(client, flags.workspace) : undefined;
  const rule: FaultRuleInput = {
    ...(flags.method ? { method: flags.method } : {}),
    ...(flags.path ? { path: flags.path } : {}),
    ...(target ? { workspaceId: target.id } : {}),
    // the key by id, listing prefix or the key itself; the rule names it by id
    ...(flags.key ? { key: (await findAnyKey(client, flags.key)).id } : {}),
    ...(flags.status !== undefined ? { status: flags.status } : {}),
    ...(flags.body !== undefined ? { body: parseBody(flags.body) } : {}),
    ...(flags.header?.length ? { headers: parseHeaders(flags.header) } : {}),
    ...(flags.latency !== undefined ? { latencyMs: flags.latency } : {}),
    ...(flags.drop ? { drop: true } : {}),
    ...(flags.times !== undefined ? { times: flags.times } : {}),
    ...(flags.probability !== undefined ? { probability: flags.probability } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  };
  const created = await client.addFault(rule);
  report(flags, created, () => `Added ${created.id}: ${describe(created)}`);
  const note = rateLimitNote(target ? [target] : await client.workspaces());
  if (note) process.stderr.write(`${dim(note)}\n`);
}

async function addDeliveryFault(flags: FaultAddFlags): Promise<void> {
  const rule = deliveryRule(flags);
  const client = await controlClient(flags);
  const target = flags.workspace ? await resolveWorkspace(client, flags.workspace) : undefined;
  const created = await client.addFault({
    ...rule,
    ...(target ? { workspaceId: target.id } : {}),
    ...(flags.times !== undefined ? { times: flags.times } : {}),
    ...(flags.probability !== undefined ? { probability: flags.probability } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  });
  report(flags, created, () => `Added ${created.id}: ${describe(created)}`);
}

/**
 * On a workspace whose limits are enforced, the tier's 429s mix with a rule's answers
 * (200 503 429 ...); one line says so and how to keep them out. Null when none enforces them.
 */
export function rateLimitNote(workspaces: readonly WorkspaceSummary[]): string | null {
  const enforcing = workspaces.filter((w) => w.rateLimits === 'enforce');
  if (enforcing.length === 0) return null;
  const first = enforcing[0]!;
  const tier = (w: WorkspaceSummary) =>
    `${w.name}: ${w.mode} tier, ${WORKSPACE_LIMITS[w.mode].perMinute.toLocaleString('en-US')}/min, burst ${WORKSPACE_LIMITS[w.mode].burst}`;
  const higher = enforcing.some((w) => w.mode === 'sandbox')
    ? `, or \`sandbox ratelimit mode live --workspace "${enforcing.find((w) => w.mode === 'sandbox')!.name}"\` for the live tier's higher limits`
    : '';
  return `note: rate limits are enforced (${enforcing.length === 1 ? tier(first) : enforcing.map(tier).join('; ')}), so their 429s will mix with this rule's answers; to keep them out, start the sandbox with --no-rate-limits (or create the workspace with --rate-limits report)${higher}`;
}

export async function runFaultList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const rules = await client.faults();
  if (flags.json) return printJson(rules);
  if (rules.length === 0) return say('No fault rules');
  say(
    table(
      ['ID', 'MATCHES', 'DOES', 'LEFT', 'HITS'],
      rules.map((r) => [
        r.id,
        matches(r),
        effect(r),
        r.remaining !== null ? String(r.remaining) : r.probability !== undefined ? `p=${r.probability}` : 'all',
        String(r.hits),
      ]),
    ),
  );
}

export async function runFaultClear(id: string | undefined, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  if (id !== undefined) {
    const removed = await client.removeFault(id);
    return flags.json ? printJson({ removed: 1, ids: [removed.id] }) : say(`Removed ${removed.id}`);
  }
  const { removed, released } = await client.clearFaults();
  if (flags.json) return printJson({ removed, released });
  say(`Removed ${plural(removed, 'fault rule')}${released ? `; sent the ${plural(released, 'delivery', 'deliveries')} they held, in order` : ''}`);
}

/** --body is JSON; plain text that is not JSON is sent as a JSON string. */
function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** `--header retry-after:2 --header x-a:b` -> {retry-after: "2", x-a: "b"} */
function parseHeaders(pairs: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of pairs) {
    const colon = pair.indexOf(':');
    if (colon <= 0) throw new Error(`--header "${pair}" must be name:value`);
    headers[pair.slice(0, colon).trim().toLowerCase()] = pair.slice(colon + 1).trim();
  }
  return headers;
}

const matches = (r: FaultRuleSummary): string =>
  r.target === 'delivery'
    ? deliveryMatches(r)
    : [r.method ?? '*', r.path ?? '/**', r.workspaceId ? `workspace ${r.workspaceId}` : '', r.key ? `key ${r.key}` : ''].filter(Boolean).join(' ');

const effect = (r: FaultRuleSummary): string =>
  r.target === 'delivery'
    ? deliveryEffect(r)
    : [r.drop ? 'drop' : '', r.status !== undefined ? `answer ${r.status}` : '', r.latencyMs ? `+${r.latencyMs}ms` : ''].filter(Boolean).join(', ');

function describe(r: FaultRuleSummary): string {
  if (r.target !== 'delivery') {
    const when = r.remaining === null ? `with probability ${r.probability}` : `on the next ${plural(r.remaining, 'matching request')}`;
    return `${effect(r)} for ${matches(r)} ${when}`;
  }
  const when =
    r.remaining !== null
      ? `on the next ${plural(r.remaining, 'one', 'ones')}`
      : r.probability !== undefined
        ? `on each with probability ${r.probability}${r.seed !== undefined ? ` (seed ${r.seed})` : ''}, until cleared`
        : r.holdUntil !== undefined
          ? 'on each until the hold ends (or fault clear)'
          : 'on each until cleared';
  return `${effect(r)} for ${matches(r)}, ${when}`;
}
