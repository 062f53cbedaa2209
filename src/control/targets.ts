/**
 * The control plane's targets are resolved or refused: a
 * rule that names a workspace, a key or a /v1 path that does not exist would
 * be accepted and never apply, and a script would pass or fail for a reason
 * nobody sees. Each refusal is one line that says what to send instead.
 */
import { badRequest, notFound } from '../core/errors.ts';
import { API_KEYS } from '../core/tenancy.ts';
import { GLOBAL_PARTITION } from '../storage/index.ts';
import { ORG_API_KEYS } from '../resources/organizations/collections.ts';
import type { SandboxContext } from '../context.ts';
import { nearestRoute } from '../http/route-suggest.ts';
import { WEBHOOK_SUBSCRIPTIONS } from '../resources/webhooks/collections.ts';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/catalogue.ts';
import { eventNameProblem, matchesNoKnownEvent } from '../webhooks/matching.ts';

/** A fault's `key`: a key id or a listing prefix that some key has (src/core/faults.ts compares both). */
export function requireKeyRef(ctx: SandboxContext, ref: string): void {
  const workspaceKeys = API_KEYS.in(ctx.store).list(GLOBAL_PARTITION);
  if (workspaceKeys.some((k) => k.id === ref || k.keyPrefix === ref)) return;
  const orgKeys = ORG_API_KEYS.in(ctx.store);
  for (const ws of orgKeys.partitions()) if (orgKeys.list(ws).some((k) => k.id === ref || `org_${k.keyPrefix}` === ref)) return;
  const whole = workspaceKeys.find((k) => ref.startsWith(k.keyPrefix));
  const hint = whole ? `; it looks like a whole key: send its id ${whole.id} or its prefix ${whole.keyPrefix} instead` : '';
  throw notFound(`Key ${ref}`).because('NOT_FOUND', `no key has the id or listing prefix ${ref}${hint} (sandbox keys list)`);
}

/** A fault's `path`: a /v1 path or pattern that at least one /v1 route can match. */
export function requireV1Path(ctx: SandboxContext, pattern: string): void {
  const path = pattern.replace(/\/+$/, '') || '/';
  if (!/^\/v1(\/|$)/.test(path)) {
    throw badRequest('CONTROL_INVALID', `path ${pattern} is not under /v1: faults apply to /v1 requests only`).because(
      'CONTROL_INVALID',
      `path ${pattern} is not under /v1: faults apply to /v1 requests only`,
    );
  }
  const wanted = path.split('/');
  const routes = ctx.routes.routes.filter((r) => r.url.startsWith('/v1'));
  if (routes.some((r) => segmentsMatch(wanted, 0, r.url.replace(/\/+$/, '').split('/'), 0))) return;
  const near = pattern.includes('*') ? null : nearestRoute(ctx, 'GET', path);
  const message = `path ${pattern} matches no /v1 route, so the fault could never fire${near ? `; did you mean ${near.replace(/^\S+ /, '')}?` : ''} (GET /__sandbox/openapi.json lists them)`;
  throw badRequest('CONTROL_INVALID', message).because('CONTROL_INVALID', message);
}

/** Whether pattern segments (with `*` within a segment, `**` across) can match a route's segments (`:param` matches any). */
function segmentsMatch(glob: string[], i: number, route: string[], j: number): boolean {
  if (i === glob.length) return j === route.length;
  const segment = glob[i]!;
  if (segment.includes('**')) return true; // the rest may span any segments
  if (j === route.length) return false;
  const target = route[j]!;
  const fits = target.startsWith(':') || segmentRegExp(segment).test(target);
  return fits && segmentsMatch(glob, i + 1, route, j + 1);
}

const segmentRegExp = (segment: string) =>
  new RegExp(
    `^${segment
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );

/** A delivery rule's `event`: a name or pattern (as a subscription's events) that some event the sandbox emits has. */
export function requireDeliveryEvent(pattern: string): void {
  const problem = eventNameProblem(pattern);
  const message =
    problem ??
    (matchesNoKnownEvent(pattern)
      ? `event ${pattern} matches no event the sandbox emits, so the fault could never fire (it emits ${WEBHOOK_EVENT_TYPES.join(', ')})`
      : null);
  if (message) throw badRequest('CONTROL_INVALID', message).because('CONTROL_INVALID', message);
}

/** A delivery rule's `subscriptionId`: a subscription of that workspace, or of any when the rule names none. */
export function requireSubscription(ctx: SandboxContext, id: string, workspaceId: string | undefined): void {
  const subscriptions = WEBHOOK_SUBSCRIPTIONS.in(ctx.store);
  const partitions = workspaceId === undefined ? subscriptions.partitions() : [workspaceId];
  if (partitions.some((ws) => subscriptions.get(ws, id))) return;
  const where = workspaceId === undefined ? '' : ` in workspace ${workspaceId}`;
  throw notFound(`Subscription ${id}`).because(
    'NOT_FOUND',
    `no webhook subscription ${id}${where} (sandbox listen prints its own; GET /v1/webhooks/subscriptions lists them)`,
  );
}

/** An outage that has already ended would hold nothing. */
export function requireHoldAhead(holdUntil: string | number, now: string): void {
  if (typeof holdUntil !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(holdUntil) || Date.parse(holdUntil) > Date.parse(now)) return;
  const message = `holdUntil ${holdUntil} is not after the sandbox's time (${now}), so the rule would hold nothing; give a later time or a duration (30s, 5m)`;
  throw badRequest('CONTROL_INVALID', message).because('CONTROL_INVALID', message);
}
