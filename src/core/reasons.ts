/**
 * Why the sandbox refused a request: the catalogue of reason codes
 * and the helpers that build their sentences. A reason travels beside the
 * documented body, never in it (X-Sandbox-Reason, the request log, the stream,
 * `sandbox logs`, the dashboard); the catalogue is docs/api-notes.md, "Reason
 * codes". Every helper here runs only when a request is refused, so the 200
 * path builds no string.
 *
 * An error that carries a stable `code` (core/error-codes.ts) and no reason of
 * its own gets that code as its reason code and its message as the sentence
 * (`reasonFor`): every 4xx the sandbox decides says why. The codes below are
 * those of the refusals whose bodies the API description fixes without a code
 * (401, 403, 404, 429, the analytics 400) and of fault rules.
 */
import type { Clock } from './clock.ts';
import { ERROR_CODES, type ErrorCode } from './error-codes.ts';
import { ApiError, forbidden, notFound, rateLimited, unauthorized, type Reason } from './errors.ts';
import type { IdSource } from './ids.ts';
import { idPrefixOf } from './ids.ts';
import type { RateMeter } from './rate-limit.ts';

/** Reason codes and when each fires; status null: whatever status the fault rule gives, or none (a drop). */
export const REASON_CODES = {
  MISSING_AUTHORIZATION: [401, 'no Authorization header'],
  NOT_BEARER: [401, 'the Authorization scheme is not Bearer (the scheme is case-insensitive: bearer is fine)'],
  MALFORMED_BEARER: [401, 'Bearer is not followed by exactly one key'],
  UNKNOWN_KEY: [401, 'no key matches the one sent; the sentence shows how it starts, never the whole key'],
  KEY_REVOKED: [401, 'the key was revoked: when, and by whom when known'],
  KEY_EXPIRED: [401, "the organization key expired: when, on which workspace's clock"],
  KEY_WORKSPACE_DELETED: [401, 'a key outlived its workspace (defensive: deleting a workspace deletes its keys)'],
  CONTROL_TOKEN_REQUIRED: [401, 'control plane: X-Sandbox-Token is missing or wrong (a sandbox bound to a non-loopback host)'],
  MISSING_SCOPE: [403, 'the key lacks the scope the route needs: names that scope and the scopes the key has'],
  ORGANIZATION_KEY_NOT_ALLOWED: [403, 'an organization key called an organization-key endpoint: partners cannot mint or revoke keys'],
  OTHER_WORKSPACE: [403, "analytics: workspaceId is not the key's workspace (whether or not it exists)"],
  NOT_FOUND: [
    404,
    "the id is not a record of the key's workspace: names the id and whether its form is right for the field; never says whether it exists elsewhere",
  ],
  OUTSIDE_KEY_PRODUCTS: [404, "an organization key's productIds exclude the product asked for (or the departure's, booking's or policy's product)"],
  WORKSPACE_NOT_FOUND: [404, 'an internal service key named an unknown workspace in x-workspace-id'],
  ROUTE_NOT_FOUND: [404, 'no route has this method and path (with the closest route when there is one)'],
  NOT_A_PROXY: [404, 'control plane: /__sandbox/parity on a sandbox that is not running as a parity proxy (`sandbox proxy --target <url>`)'],
  RATE_LIMIT_BURST: [429, 'a burst bucket is empty (workspace or organization key): when the next token comes; on a manual clock, how to advance it'],
  RATE_LIMIT_MINUTE: [429, 'a minute quota is used up (workspace or organization key): when the window resets; on a manual clock, how to advance it'],
  RATE_LIMIT_PER_SECOND: [429, "an organization key's rps cap is reached for this second"],
  SUSPENDED: [429, 'the workspace is suspended after too many 429s (suspension is on): until when'],
  RESEND_TOO_SOON: [429, 'verification: a new code within 30 s of the last one to the same target'],
  MISSING_PARAMETER: [400, 'analytics: a required query parameter is missing'],
  FAULT_INJECTED: [null, 'a fault rule answered (its status and body): names the rule'],
  FAULT_DROPPED: [null, 'a fault rule dropped the connection: no answer, so the request log alone (status 0) says why'],
  SANDBOX_STOPPING: [
    503,
    'the sandbox is stopping: a request that came after the stop began, or one still running at the stop deadline (stopTimeoutMs, --stop-timeout)',
  ],
  REFUSED: [null, 'any other 4xx: the error message'],
} as const satisfies Record<string, readonly [number | null, string]>;

export type ReasonCode = keyof typeof REASON_CODES;

/** Every code an X-Sandbox-Reason can start with: the ones above and the 4xx error codes. */
export const ALL_REASON_CODES: readonly string[] = [
  ...Object.keys(REASON_CODES),
  ...(Object.entries(ERROR_CODES) as [ErrorCode, readonly [number, string]][]).filter(([, [status]]) => status < 500).map(([code]) => code),
];

const because = (error: ApiError, code: ReasonCode, message: string) => error.because(code, message);

/**
 * The reason of an error about to be sent: its own, or for a 4xx without one,
 * the body's code and message (a validation error's first detail). 5xx
 * answers the sandbox did not mean (a bug) get none.
 */
export function reasonFor(error: ApiError): Reason | null {
  if (error.reason) return error.reason;
  if (error.statusCode < 400 || error.statusCode >= 500) return null;
  const { code, error: message, details } = error.body;
  if (typeof code !== 'string') return { code: error.statusCode === 404 ? 'NOT_FOUND' : 'REFUSED', message };
  const list: unknown[] = Array.isArray(details) ? details : [];
  const first = (list[0] as { message?: unknown } | undefined)?.message;
  if (typeof first !== 'string') return { code, message };
  return { code, message: list.length > 1 ? `${first} (and ${list.length - 1} more)` : first };
}

/**
 * The reason of a replayed 4xx (a retry with the same Idempotency-Key gets the first answer
 * again): the first answer's code and message, saying it is a replay and of when. The saved
 * body is the documented error body, so its code is read back from it.
 */
export function replayReason(statusCode: number, savedBody: string, firstAt: string): Reason | null {
  if (statusCode < 400 || statusCode >= 500) return null;
  let body: unknown;
  try {
    body = JSON.parse(savedBody);
  } catch {
    body = null;
  }
  const error = new ApiError(
    statusCode,
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as ApiError['body'])
      : { error: `HTTP ${statusCode}` },
  );
  const first = reasonFor(error)!;
  return { code: first.code, message: `replayed the first answer to this Idempotency-Key (${firstAt}): ${first.message}` };
}

// -- 401 ---------------------------------------------------------------------

/** How a bearer is shown: the part listings show (a key's prefix), never the secret. */
export function shownKey(token: string): string {
  if (/^tcs_(live|test)_/.test(token)) return `${token.slice(0, Math.min(16, token.length - 8))}...`;
  const org = /^org_[A-Za-z0-9]{1,8}_/.exec(token);
  if (org) return `${org[0]}...`;
  return `${token.slice(0, Math.min(8, Math.floor(token.length / 2)))}... (${token.length} characters)`;
}

/** A missing or malformed Authorization header. */
export function badAuthorization(header: string | undefined): ApiError {
  if (!header) return because(unauthorized(), 'MISSING_AUTHORIZATION', 'no Authorization header; send Authorization: Bearer <key>');
  const scheme = /^\S*/.exec(header)![0];
  // a key with no scheme in front: the one word is the key, not a scheme to name
  if (header.trim() === scheme && scheme.toLowerCase() !== 'bearer') {
    return because(
      unauthorized(),
      'NOT_BEARER',
      `the Authorization header has a key with no scheme (${shownKey(scheme)}); send it as Authorization: Bearer <key>`,
    );
  }
  if (scheme.toLowerCase() !== 'bearer') {
    return because(unauthorized(), 'NOT_BEARER', `the Authorization scheme is "${scheme.slice(0, 20)}", not Bearer; send Authorization: Bearer <key>`);
  }
  return because(unauthorized(), 'MALFORMED_BEARER', 'Authorization: Bearer must be followed by exactly one key and nothing else');
}

const PLACEHOLDERS = new Set(['undefined', 'null', '""', "''", '<key>', 'YOUR_API_KEY']);

/** Where a user finds the keys that work. */
const KEYS_ARE = "the keys are in `sandbox keys list` and the inspector's Keys view";

export function unknownKey(token: string): ApiError {
  if (PLACEHOLDERS.has(token))
    return because(unauthorized(), 'UNKNOWN_KEY', `the key sent is the text "${token}": is the variable that should hold the key set? ${KEYS_ARE}`);
  const shape = /^(tcs_(live|test)_|org_)/.test(token) ? '' : '; it does not look like a key the sandbox issues (tcs_live_..., tcs_test_..., org_...)';
  return because(unauthorized(), 'UNKNOWN_KEY', `no key matches ${shownKey(token)}${shape}; ${KEYS_ARE}`);
}

export function keyRevoked(keyPrefix: string, revokedAt: string | null, revokedBy: string | null): ApiError {
  const by = revokedBy ? ` by ${revokedBy}` : '';
  return because(unauthorized(), 'KEY_REVOKED', `key ${keyPrefix}... was revoked${revokedAt ? ` at ${revokedAt}` : ''}${by}`);
}

export function keyExpired(keyPrefix: string, expiresAt: string, workspaceId: string, clock: Clock): ApiError {
  const now = clock.isoIn(workspaceId);
  return because(
    unauthorized(),
    'KEY_EXPIRED',
    `key ${keyPrefix}... expired at ${expiresAt} by the clock of workspace ${workspaceId} (${clock.mode}), which reads ${now}`,
  );
}

export const keyWorkspaceDeleted = (keyPrefix: string, workspaceId: string) =>
  because(unauthorized(), 'KEY_WORKSPACE_DELETED', `key ${keyPrefix}... belongs to workspace ${workspaceId}, which was deleted`);

export const controlTokenRequired = (sent: boolean) =>
  because(
    new ApiError(401, { error: 'Unauthorized: the control plane needs the sandbox control token (X-Sandbox-Token)' }),
    'CONTROL_TOKEN_REQUIRED',
    sent
      ? "the control token sent does not match this sandbox's (printed at start; --control-token sets it)"
      : 'no X-Sandbox-Token header: a sandbox on a non-loopback host needs it (printed at start)',
  );

// -- 403 ---------------------------------------------------------------------

export function missingScope(scope: string, keyPrefix: string, scopes: readonly string[], method: string, url: string): ApiError {
  return because(
    forbidden(),
    'MISSING_SCOPE',
    `${method} ${url} needs scope ${scope}; key ${keyPrefix}... has ${scopes.length ? scopes.join(', ') : 'no scopes'}`,
  );
}

export const organizationKeyNotAllowed = (keyPrefix: string) =>
  because(
    forbidden(),
    'ORGANIZATION_KEY_NOT_ALLOWED',
    `key ${keyPrefix}... is an organization key: organization keys cannot list, mint or revoke organization keys, whatever their scopes; use a workspace key`,
  );

export const otherWorkspace = (workspaceId: string) => because(forbidden(), 'OTHER_WORKSPACE', `workspaceId must be the key's own workspace, ${workspaceId}`);

// -- 404 ---------------------------------------------------------------------

/**
 * A well-formed id the key's workspace does not hold. Over /v1 nothing else is
 * looked at: whether the id exists in another workspace is never told.
 */
export function unknownRecord(what: string, id: string, source: IdSource, field: string, workspaceId: string, noun = what.toLowerCase()): ApiError {
  const form = source.idPrefix === null ? `a bare UUID is right for ${field}` : `the prefix ${idPrefixOf(source)} is right for ${field}`;
  return because(notFound(what), 'NOT_FOUND', `${noun} ${id} is not in workspace ${workspaceId}, the key's workspace (${form})`);
}

/** An organization key limited to productIds asked for something of another product. */
export function outsideKeyProducts(what: string, thing: string, productId: string, keyPrefix: string, allowed: number): ApiError {
  const of = thing === productId ? `product ${productId}` : `${thing} is of product ${productId}, which`;
  return because(
    notFound(what),
    'OUTSIDE_KEY_PRODUCTS',
    `${of} is not among the ${allowed} product${allowed === 1 ? '' : 's'} organization key ${keyPrefix}... may use (its productIds)`,
  );
}

export const workspaceNotFound = (workspaceId: string) =>
  because(
    new ApiError(404, { error: `Workspace ${workspaceId} not found` }),
    'WORKSPACE_NOT_FOUND',
    `x-workspace-id names ${workspaceId.slice(0, 60)}, which is no workspace of this sandbox`,
  );

export function routeNotFoundReason(error: ApiError, method: string, path: string, nearest: string | null): ApiError {
  return because(error, 'ROUTE_NOT_FOUND', `no route ${method} ${path.split('?')[0]!.slice(0, 200)}${nearest ? `; the closest is ${nearest}` : ''}`);
}

// -- 429 ---------------------------------------------------------------------

/**
 * On a manual clock nothing refills until the clock moves: say so, and how
 * (README, "Parallel test workers"; docs/control-plane.md). '' on a real clock.
 */
export function frozenClockHint(clock: Clock, workspaceId: string | null, waitMs: number): string {
  if (clock.mode !== 'manual') return '';
  const ms = Math.max(1, Math.ceil(waitMs));
  const frozen = '. The clock is manual and frozen: nothing refills until it moves. Advance it';
  if (workspaceId === null)
    return `${frozen}: POST /__sandbox/clock/advance {"ms":${ms}}, \`sandbox clock advance ${ms}ms\`, or sandbox.clock.advance(${ms}) in code`;
  return `${frozen}: POST /__sandbox/workspaces/${workspaceId}/clock/advance {"ms":${ms}}, \`sandbox workspace advance ${workspaceId} ${ms}ms\`, or in code workspace.advance(${ms}) or sandbox.clock.advance(${ms})`;
}

/** The refusal of one meter of one bucket (the one Retry-After reports). */
export interface RateRefusal {
  /** `workspace <id> (sandbox: 100/min, burst 5/s)` or `organization key org_ab... (rpm 60, burst 5, rps 2)` */
  bucket: string;
  meter: RateMeter;
  /** the meter's size: requests a minute, a second, or burst tokens */
  size: number;
  /** when it lets one request through (ISO, the workspace's clock) */
  at: string;
  waitMs: number;
  /** a workspace's burst: `size` requests within any one second, not a token bucket (rate-limit.ts) */
  slidingBurst?: boolean;
}

export function rateLimitedBecause(retryAfter: number, refusal: RateRefusal, hint: string): ApiError {
  const { bucket, meter, size, at } = refusal;
  const error = rateLimited(retryAfter);
  switch (meter) {
    case 'burst':
      return because(
        error,
        'RATE_LIMIT_BURST',
        refusal.slidingBurst
          ? `${bucket} made ${size} requests within the last second, its burst; the next may pass at ${at}${hint}`
          : `${bucket} used its burst of ${size}; the next token comes at ${at}${hint}`,
      );
    case 'minute':
      return because(error, 'RATE_LIMIT_MINUTE', `${bucket} used its ${size} requests of this minute; the window resets at ${at}${hint}`);
    case 'second':
      return because(error, 'RATE_LIMIT_PER_SECOND', `${bucket} made its ${size} requests of this second; the next second starts at ${at}${hint}`);
  }
}

export const suspendedBecause = (retryAfter: number, workspaceId: string, until: string, why: string, hint: string) =>
  because(
    rateLimited(retryAfter),
    'SUSPENDED',
    `workspace ${workspaceId} is suspended until ${until} (${why}; PUT /__sandbox/suspension {"enabled":false} turns suspension off)${hint}`,
  );

export const resendTooSoon = (retryAfter: number, target: string, sentAt: string, next: string, hint: string) =>
  because(rateLimited(retryAfter), 'RESEND_TOO_SOON', `a code was sent to ${target.slice(0, 80)} at ${sentAt}; the next may be sent at ${next}${hint}`);

// -- faults ------------------------------------------------------------------

export function faultReason(rule: {
  id: string;
  status?: number | undefined;
  drop?: boolean | undefined;
  remaining: number | null;
  probability?: number | undefined;
}): Reason {
  const left = rule.remaining === null ? `fires with probability ${rule.probability}` : `${rule.remaining} more use${rule.remaining === 1 ? '' : 's'}`;
  const what = rule.drop ? 'dropped the connection' : `answered ${rule.status}`;
  const code: ReasonCode = rule.drop ? 'FAULT_DROPPED' : 'FAULT_INJECTED';
  return { code, message: `fault rule ${rule.id} ${what} (${left}; DELETE /__sandbox/faults/${rule.id} or \`sandbox fault clear ${rule.id}\` removes it)` };
}
