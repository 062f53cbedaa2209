import type { Principal } from '../../core/auth.ts';
import { ApiError, badRequest } from '../../core/errors.ts';
import { otherWorkspace } from '../../core/reasons.ts';
import { idPrefixOf, isUuid } from '../../core/ids.ts';
import { WORKSPACES } from '../../core/tenancy.ts';
import type { Op, Store } from '../../storage/index.ts';
import type { DeliveryEventResponseRow, DeliveryEventsQuery } from './requests.ts';
import { deliveryEventRowId, type DeliveryEventRow } from './schemas.ts';
import { DELIVERY_EVENTS } from './collections.ts';

/** Longest range the sandbox infers for one request (a bit over a year): past it a warning, refused under --strict. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
const REQUIRED = ['from', 'to', 'workspaceId'] as const;

/** YYYY-MM-DD that is a real calendar day, as epoch ms; else null. */
function parseDay(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? null : ms;
}

/**
 * A missing parameter is the documented body {error: <message>} (API description, "Errors"): no
 * code, naming every missing one. The route calls this when its query failed validation.
 */
export function assertParameters(query: Partial<Record<(typeof REQUIRED)[number], unknown>>): void {
  const missing = REQUIRED.filter((name) => query[name] === undefined || query[name] === '');
  if (missing.length > 0) {
    const error = `Missing required query parameter${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`;
    throw new ApiError(400, { error }).because('MISSING_PARAMETER', `${error} (from and to are YYYY-MM-DD; workspaceId is the key's workspace)`);
  }
}

export class AnalyticsService {
  constructor(private readonly store: Store) {}

  /**
   * Daily counts for from..to (both inclusive), sorted by day, channel, event.
   * Errors are the plain `{error}` body of the description's Errors table; a
   * workspaceId other than the key's own is a 403 whether or not it exists, so
   * nothing about other workspaces leaks.
   */
  deliveryEvents(
    principal: Principal,
    query: DeliveryEventsQuery,
    longRange: (message: string, refusal: () => ApiError) => void = () => undefined,
  ): DeliveryEventResponseRow[] {
    assertParameters(query);
    const { from, to, workspaceId } = query;
    const fromMs = parseDay(from);
    const toMs = parseDay(to);
    const invalid = [fromMs === null ? 'from' : null, toMs === null ? 'to' : null].filter((n) => n !== null);
    if (invalid.length > 0) throw badRequest('INVALID_DATE', `Invalid ${invalid.join(' and ')}: expected a date YYYY-MM-DD`);
    if (fromMs! > toMs!) throw badRequest('INVALID_DATE_RANGE', `Invalid range: from (${from}) is after to (${to})`);
    const days = (toMs! - fromMs!) / DAY_MS + 1;
    // the description gives from and to with no limit: a longer range is answered, with a warning
    if (days > MAX_RANGE_DAYS) {
      longRange(`the range is ${days} days; the sandbox infers at most ${MAX_RANGE_DAYS} per request`, () =>
        badRequest('INVALID_DATE_RANGE', `Invalid range: at most ${MAX_RANGE_DAYS} days per request`),
      );
    }
    if (!this.isOwnWorkspace(principal, workspaceId)) throw otherWorkspace(principal.workspace.id);
    return DELIVERY_EVENTS.in(this.store)
      .list(principal.workspace.id)
      .filter((row) => row.day >= from && row.day <= to)
      .map(({ day, channel, event, cnt }) => ({ day, channel, event, cnt }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.channel.localeCompare(b.channel) || a.event.localeCompare(b.event));
  }

  private isOwnWorkspace(principal: Principal, raw: string): boolean {
    const prefix = idPrefixOf(WORKSPACES);
    const uuid = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
    if (!isUuid(uuid)) throw badRequest('INVALID_ID', `Invalid workspaceId: expected a UUID (or ${prefix}<uuid>)`);
    return `${prefix}${uuid.toLowerCase()}` === principal.workspace.id;
  }
}

/**
 * Ops that add one to the day's counters of a channel (the sandbox's own
 * sends, such as verification codes, count as real traffic).
 */
export function deliveryCountOps(
  store: Store,
  workspaceId: string,
  day: string,
  channel: DeliveryEventRow['channel'],
  events: readonly DeliveryEventRow['event'][],
): Op[] {
  return events.map((event) => {
    const id = deliveryEventRowId({ day, channel, event });
    const current = DELIVERY_EVENTS.in(store).get(workspaceId, id);
    const row: DeliveryEventRow = { id, day, channel, event, cnt: (current?.cnt ?? 0) + 1 };
    return DELIVERY_EVENTS.putOp(workspaceId, row);
  });
}
