import type { RequestLogLine } from '../control/client.ts';
import { printJson } from './output.ts';
import { say } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';
import { deliveryTable, type ListedDelivery } from './delivery-lines.ts';
import { requestFilter } from './logs.ts';

/**
 * `sandbox verify --delivery` (docs/webhooks.md, "Testing your receiver"): counts the webhook
 * deliveries (GET /__sandbox/deliveries, the newest 500) that a delivery fault rule touched with
 * --fault, of --event, whose latest attempt the receiver answered with --status: "the receiver
 * answered 2xx to each of the 4 duplicates" is `--fault duplicate --status 2xx --count 4`.
 */
export interface DeliveryVerifyFlags extends ScriptFlags {
  method?: string;
  path?: string;
  status?: string;
  since?: string;
  fault?: string;
  event?: string;
}

/** the count that must hold, as `sandbox verify` read it from --count, --at-least and --at-most */
export interface CountExpected {
  min: number;
  max: number;
  text: string;
}

export const FAULT_CHOICES = ['duplicate', 'reorder', 'latency', 'drop', 'hold', 'any', 'none'] as const;
const PAGE = 500;

export async function verifyDeliveries(flags: DeliveryVerifyFlags, expected: CountExpected): Promise<void> {
  for (const [flag, value] of [
    ['--method', flags.method],
    ['--path', flags.path],
  ] as const)
    if (value !== undefined) throw new Error(`${flag} counts /v1 requests; with --delivery, count by --fault, --event and --status`);
  const fault = flags.fault?.toLowerCase();
  if (fault !== undefined && !(FAULT_CHOICES as readonly string[]).includes(fault))
    throw new Error(`--fault takes ${FAULT_CHOICES.join(', ')}, not "${flags.fault}"`);
  const answered = requestFilter({ status: flags.status });
  const since = flags.since === undefined ? undefined : Date.parse(flags.since);
  if (since !== undefined && Number.isNaN(since)) throw new Error(`--since with --delivery takes an ISO time (2026-01-15T09:00:00Z), not "${flags.since}"`);
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const all = await client.deliveries({ workspaceId, limit: PAGE });
  const touched = (d: ListedDelivery) =>
    fault === undefined || (fault === 'any' ? d.fault !== null : fault === 'none' ? d.fault === null : d.fault?.action === fault && !hidesAs(d, fault));
  const inScope = all.filter(
    (d) => touched(d) && (!flags.event || eventMatches(flags.event, d.eventType)) && (since === undefined || Date.parse(d.createdAt) >= since),
  );
  const lastStatus = (d: ListedDelivery) => d.attempts.at(-1)?.response?.status;
  const matching = inScope.filter((d) => flags.status === undefined || (lastStatus(d) !== undefined && answered({ status: lastStatus(d) } as RequestLogLine)));
  const ok = matching.length >= expected.min && matching.length <= expected.max;
  const what = [
    fault === undefined ? 'deliveries' : `${fault === 'none' ? 'untouched' : fault === 'any' ? 'faulted' : fault} deliveries`,
    flags.event ? `of ${flags.event}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const summary = `${matching.length} of ${inScope.length} ${what}${flags.status ? ` answered ${flags.status}` : ''}${workspaceId ? ` in ${workspaceId}` : ''}${flags.since ? ` since ${flags.since}` : ''}; expected ${expected.text}`;
  if (flags.json) printJson({ ok, matched: matching.length, of: inScope.length, expected: expected.text, deliveries: matching });
  else if (ok) say(summary);
  else if (inScope.length) say(deliveryTable(inScope));
  if (!ok) throw new Error(summary);
}

/**
 * `--fault duplicate` counts the duplicates a rule made (the deliveries that say "duplicate of
 * dlv_…"), not the originals they repeat, so the count is the extra deliveries a receiver got.
 */
const hidesAs = (d: ListedDelivery, fault: string): boolean => fault === 'duplicate' && !d.fault?.duplicateOf;

/** A type or pattern, as a subscription's events: `booking.*`, `*`. */
function eventMatches(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  return pattern.endsWith('.*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;
}
