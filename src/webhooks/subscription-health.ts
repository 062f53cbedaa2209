import type { Subscription } from './subscriptions.ts';
import type { AttemptOutcome } from './retry-policy.ts';

/**
 * What the platform does with an endpoint that keeps failing (docs/webhooks.md,
 * "An endpoint that fails for days"). The API description
 * does not say; the sandbox follows Svix, whose schedule it retries on
 * (Standard Webhooks): when every attempt to an endpoint has failed for 5 days,
 * the endpoint is disabled (`active: false`) and says why. Stripe does the same
 * after days of failures and e-mails the owner; here GET and the list answer
 * an `X-Sandbox-Warning` (SUBSCRIPTION_DISABLED) until it is resumed.
 */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * failure_count counts failed attempts since the last success (a success resets
 * it); last_delivery_at is the time of the latest attempt; a 410 deactivates at
 * once; failing for DISABLE_AFTER_FAILING_MS (times webhookRetryScale, so a
 * compressed schedule compresses the window too) on the sandbox clock disables.
 */
export function bookkeeping<S extends Subscription>(sub: S, outcome: AttemptOutcome, at: string, retryScale: number): S {
  if (outcome === 'succeeded') return { ...sub, failure_count: 0, last_delivery_at: at, failing_since: null };
  const failingSince = sub.failing_since ?? at;
  const failed = { ...sub, failure_count: sub.failure_count + 1, last_delivery_at: at, failing_since: failingSince };
  if (outcome === 'gone') return { ...failed, active: false, updated_at: at, disabled: { at, reason: 'the receiver answered 410 Gone' } };
  const window = DISABLE_AFTER_FAILING_MS * retryScale;
  if (sub.active && Date.parse(at) - Date.parse(failingSince) >= window) {
    const span = retryScale === 1 ? '5 days' : `5 days x webhookRetryScale ${retryScale}`;
    return {
      ...failed,
      active: false,
      updated_at: at,
      disabled: { at, reason: `every delivery attempt failed for ${span} (${failed.failure_count} failures since ${failingSince})` },
    };
  }
  return failed;
}

/** Why a pending delivery of an inactive subscription is cancelled. */
export function stoppedReason(sub: Subscription): string {
  return sub.disabled ? `subscription disabled: ${sub.disabled.reason}` : 'subscription paused';
}

/** The X-Sandbox-Warning message of a disabled subscription (null when it is not disabled). */
export function disabledNotice(sub: Subscription): string | null {
  if (!sub.disabled || sub.active) return null;
  return `subscription ${sub.id} was disabled at ${sub.disabled.at}: ${sub.disabled.reason}. PATCH {"active": true} resumes it`;
}
