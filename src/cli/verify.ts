import type { RequestLogLine } from '../control/client.ts';
import { printJson } from './output.ts';
import { say } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';
import { requestFilter, requestLine } from './logs.ts';

/**
 * `sandbox verify` (in the spirit of WireMock's verify): counts the
 * requests of the log (GET /__sandbox/requests, the last 1,000) that match
 * --method, --path and --status, and exits 0 when the count holds (--count,
 * --at-least, --at-most; at least 1 by default) or 1 after printing the nearest
 * misses: requests that differ from the pattern in one thing only.
 */
export interface VerifyFlags extends ScriptFlags {
  method?: string;
  path?: string;
  status?: string;
  count?: number;
  atLeast?: number;
  atMost?: number;
  since?: string;
  /** count webhook deliveries instead of requests (./verify-deliveries.ts) */
  delivery?: boolean;
  fault?: string;
  event?: string;
}

/** The request log holds at most this many entries (src/core/request-log.ts). */
const LOG_CAPACITY = 1000;
const MISSES_SHOWN = 5;

interface Expectation {
  min: number;
  max: number;
  text: string;
}

function expectation(flags: VerifyFlags): Expectation {
  if (flags.count !== undefined && (flags.atLeast !== undefined || flags.atMost !== undefined))
    throw new Error('--count is exact: give it alone, or --at-least and/or --at-most');
  if (flags.count !== undefined) return { min: flags.count, max: flags.count, text: `exactly ${flags.count}` };
  const min = flags.atLeast ?? (flags.atMost === undefined ? 1 : 0);
  const max = flags.atMost ?? Infinity;
  if (min > max) throw new Error(`--at-least ${min} is more than --at-most ${max}: no count can hold`);
  const text = max === Infinity ? `at least ${min}` : flags.atLeast === undefined ? `at most ${max}` : `from ${min} to ${max}`;
  return { min, max, text };
}

/**
 * The path matches as a whole (the query aside), so `/v1/bookings` does not count
 * `/v1/bookings/bk_1/cancel`; with `*` (one segment) or `**` (any), as a glob. `logs --path`,
 * which finds rather than counts, matches a piece of the path.
 */
function pathMatcher(path: string | undefined): (e: RequestLogLine) => boolean {
  if (path === undefined) return () => true;
  if (path.includes('*')) return requestFilter({ path });
  return (e) => e.path.split('?')[0] === path;
}

/** Newer than --since: a request id (the requests after it) or a time (requests at or after it). */
function sinceFilter(entries: readonly RequestLogLine[], since: string | undefined): readonly RequestLogLine[] {
  if (since === undefined) return entries;
  const index = entries.findIndex((e) => e.requestId === since);
  if (index >= 0) return entries.slice(0, index); // newest first: everything before it in the list came after it
  const at = Date.parse(since);
  if (Number.isNaN(at)) {
    const full = entries.length >= LOG_CAPACITY ? ` (the log keeps the last ${LOG_CAPACITY.toLocaleString('en-US')})` : '';
    throw new Error(`--since "${since}" is neither a request id in the log${full} nor an ISO time (2026-01-15T09:00:00Z)`);
  }
  return entries.filter((e) => Date.parse(e.at) >= at);
}

export async function runVerify(flags: VerifyFlags): Promise<void> {
  const expected = expectation(flags);
  if (flags.delivery) return (await import('./verify-deliveries.ts')).verifyDeliveries(flags, expected);
  if (flags.fault !== undefined || flags.event !== undefined) throw new Error('--fault and --event count webhook deliveries: add --delivery');
  const checks = {
    method: requestFilter({ method: flags.method }),
    path: pathMatcher(flags.path),
    status: requestFilter({ status: flags.status }),
  };
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const inWorkspace = (await client.requests(LOG_CAPACITY)).filter((e) => workspaceId === undefined || e.workspaceId === workspaceId);
  const window = [...sinceFilter(inWorkspace, flags.since)].reverse(); // oldest first, as logs prints
  const differences = (e: RequestLogLine) => (Object.keys(checks) as (keyof typeof checks)[]).filter((name) => !checks[name](e));
  const matching = window.filter((e) => differences(e).length === 0);
  const ok = matching.length >= expected.min && matching.length <= expected.max;
  const tooMany = matching.length > expected.max;
  const misses =
    ok || tooMany
      ? []
      : window
          .map((e) => ({ entry: e, differs: differences(e) }))
          .filter((m) => m.differs.length === 1)
          .slice(-MISSES_SHOWN);
  const pattern = [flags.method?.toUpperCase() ?? 'any method', flags.path ?? 'any path', flags.status ? `status ${flags.status}` : 'any status'].join(' ');
  const summary = `${matching.length} ${matching.length === 1 ? 'request matches' : 'requests match'} ${pattern}${workspaceId ? ` in ${workspaceId}` : ''}${flags.since ? ` since ${flags.since}` : ''}; expected ${expected.text}`;
  if (flags.json) {
    printJson({
      ok,
      matched: matching.length,
      expected: expected.text,
      requests: matching,
      nearestMisses: misses.map((m) => ({ ...m.entry, differs: m.differs })),
    });
  } else if (ok) {
    say(summary);
  } else {
    // too many: the ones counted are what to look at; too few: what came closest
    const shown = tooMany ? matching.slice(-MISSES_SHOWN) : [];
    if (shown.length) say(['Counted:', ...shown.map((e) => `  ${requestLine(e)}`)].join('\n'));
    if (misses.length) say(['Nearest misses:', ...misses.map((m) => `  ${requestLine(m.entry)}  (${m.differs[0]} differs)`)].join('\n'));
    if (!shown.length && !misses.length) say(window.length ? 'No request differs in only one of method, path and status' : 'No requests in the log');
  }
  if (!ok) throw new Error(summary);
}
