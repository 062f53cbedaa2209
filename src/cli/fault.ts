import type { FaultRuleInput, FaultRuleSummary } from '../control/client.ts';
import { printJson } from './output.ts';
import { plural, say, table } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';
import { findAnyKey } from './keys.ts';

/**
 * `sandbox fault add|list|clear`: fault injection rules (POST/GET/DELETE
 * /__sandbox/faults). A rule answers a status and body, adds latency or drops
 * the connection, for the next N matching /v1 requests or with a probability.
 */
export interface FaultAddFlags extends ScriptFlags {
  method?: string;
  path?: string;
  key?: string;
  status?: number;
  body?: string;
  header?: string[];
  latency?: number;
  drop?: boolean;
  times?: number;
  probability?: number;
  seed?: number;
}

export async function runFaultAdd(flags: FaultAddFlags): Promise<void> {
  // said in the flags the user typed, before the control plane's words for them (status, latencyMs, drop)
  if (flags.status === undefined && flags.latency === undefined && !flags.drop) {
    throw new Error('fault add needs what the rule does: --status <code>, --latency <duration> or --drop');
  }
  if (flags.drop && flags.status !== undefined) throw new Error('--drop and --status exclude each other: a dropped connection answers no status');
  const client = await controlClient(flags);
  const rule: FaultRuleInput = {
    ...(flags.method ? { method: flags.method } : {}),
    ...(flags.path ? { path: flags.path } : {}),
    ...(flags.workspace ? { workspaceId: (await resolveWorkspace(client, flags.workspace)).id } : {}),
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
}

export async function runFaultList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const rules = await client.faults();
  if (flags.json) return printJson(rules);
  if (rules.length === 0) return say('No fault rules');
  say(table(['ID', 'MATCHES', 'DOES', 'LEFT', 'HITS'], rules.map((r) => [r.id, matches(r), effect(r), r.remaining === null ? `p=${r.probability}` : String(r.remaining), String(r.hits)])));
}

export async function runFaultClear(id: string | undefined, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  if (id !== undefined) {
    const removed = await client.removeFault(id);
    return flags.json ? printJson({ removed: 1, ids: [removed.id] }) : say(`Removed ${removed.id}`);
  }
  const { removed } = await client.clearFaults();
  return flags.json ? printJson({ removed }) : say(`Removed ${plural(removed, 'fault rule')}`);
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
  [r.method ?? '*', r.path ?? '/**', r.workspaceId ? `workspace ${r.workspaceId}` : '', r.key ? `key ${r.key}` : ''].filter(Boolean).join(' ');

const effect = (r: FaultRuleSummary): string =>
  [r.drop ? 'drop' : '', r.status !== undefined ? `answer ${r.status}` : '', r.latencyMs ? `+${r.latencyMs}ms` : ''].filter(Boolean).join(', ');

function describe(r: FaultRuleSummary): string {
  const when = r.remaining === null ? `with probability ${r.probability}` : `on the next ${plural(r.remaining, 'matching request')}`;
  return `${effect(r)} for ${matches(r)} ${when}`;
}
