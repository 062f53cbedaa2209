import type { FaultRuleInput, FaultRuleSummary } from '../control/client.ts';
import { formatDuration } from '../core/duration.ts';

/**
 * `sandbox fault add --delivery ...` (docs/webhooks.md, "Testing your receiver"): a rule for
 * webhook deliveries, said in the flags the user typed, and how `fault add|list` describe one.
 */
export interface DeliveryFaultFlags {
  delivery?: boolean;
  event?: string;
  subscription?: string;
  duplicate?: boolean;
  reorder?: number;
  latency?: number;
  drop?: boolean;
  holdUntil?: string;
  method?: string;
  path?: string;
  key?: string;
  status?: number;
  body?: string;
  header?: string[];
}

const REQUEST_FLAGS = { method: '--method', path: '--path', key: '--key', status: '--status', body: '--body', header: '--header' } as const;
const DELIVERY_FLAGS = { event: '--event', subscription: '--subscription', duplicate: '--duplicate', reorder: '--reorder', holdUntil: '--hold-until' } as const;
const ACTIONS = '--duplicate, --reorder <duration>, --latency <duration>, --drop or --hold-until <duration|time>';

/** The flags a request rule takes that --delivery does not, or the other way round; null when none is out of place. */
export function misplacedFlags(flags: DeliveryFaultFlags): string | null {
  const table = flags.delivery ? REQUEST_FLAGS : DELIVERY_FLAGS;
  const given = Object.entries(table)
    .filter(([name]) => flags[name as keyof DeliveryFaultFlags] !== undefined)
    .map(([, flag]) => flag);
  if (given.length === 0) return null;
  return flags.delivery
    ? `${given.join(', ')}: for request rules; a --delivery rule matches by --event, --subscription and --workspace`
    : `${given.join(', ')}: for delivery rules; add --delivery`;
}

/** The rule's body from the flags, checked as the control plane would, in the flags' words. */
export function deliveryRule(flags: DeliveryFaultFlags): FaultRuleInput {
  const misplaced = misplacedFlags(flags);
  if (misplaced) throw new Error(misplaced);
  const actions = [
    flags.duplicate && '--duplicate',
    flags.reorder !== undefined && '--reorder',
    flags.latency !== undefined && !flags.duplicate && '--latency',
    flags.drop && '--drop',
    flags.holdUntil !== undefined && '--hold-until',
  ].filter(Boolean);
  if (actions.length !== 1)
    throw new Error(
      `fault add --delivery does one thing: ${ACTIONS} (--latency with --duplicate says when the duplicate follows); ${actions.length ? `not ${actions.join(' and ')}` : 'none was given'}`,
    );
  return {
    target: 'delivery',
    ...(flags.event !== undefined ? { event: flags.event } : {}),
    ...(flags.subscription !== undefined ? { subscriptionId: flags.subscription } : {}),
    ...(flags.duplicate ? { duplicate: true } : {}),
    ...(flags.reorder !== undefined ? { reorderMs: flags.reorder } : {}),
    ...(flags.latency !== undefined ? { latencyMs: flags.latency } : {}),
    ...(flags.drop ? { drop: true } : {}),
    ...(flags.holdUntil !== undefined ? { holdUntil: flags.holdUntil } : {}),
  };
}

/** `deliveries of booking.* to whsub_… in wksp_…` */
export const deliveryMatches = (r: FaultRuleSummary): string =>
  [`deliveries of ${r.event ?? '*'}`, r.subscriptionId ? `to ${r.subscriptionId}` : '', r.workspaceId ? `in workspace ${r.workspaceId}` : '']
    .filter(Boolean)
    .join(' ');

/** `duplicate, 2s after the first answer`, `reorder: held 3s`, `drop the first attempt`, `hold until <time>` */
export function deliveryEffect(r: FaultRuleSummary): string {
  if (r.duplicate) return r.latencyMs ? `duplicate, ${formatDuration(r.latencyMs)} after the first answer` : 'duplicate, at once after the first answer';
  if (r.reorderMs !== undefined) return `reorder: held ${formatDuration(r.reorderMs)}`;
  if (r.holdUntil !== undefined) return `hold until ${r.holdUntil}`;
  if (r.drop) return 'drop the first attempt';
  return `late ${formatDuration(r.latencyMs ?? 0)}`;
}
