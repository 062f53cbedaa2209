/**
 * Sandbox warnings (docs/api-notes.md "Warnings"): where the API
 * description is silent the sandbox accepts what a real platform would most
 * likely accept, and says so. Each warning is one short line with a stable
 * code; `strict` mode turns any warning into a 400 VALIDATION_400 instead.
 */
export const WARNING_CODES = {
  UNKNOWN_FIELD: 'a body key the endpoint does not know was ignored',
  UNKNOWN_EVENT_TYPE: 'a webhook event name or pattern the sandbox never emits was stored; it will match nothing here',
  UNKNOWN_FORM_FIELD_TYPE: 'a form field type outside the known list was stored as sent',
  ADDONS_NOT_NAMED: 'addonQuantity came without addons; the units were priced as unnamed add-ons at zero cost',
  PRICING_SNAPSHOT_NOT_A_QUOTE: 'attributes.pricingSnapshot is not quote-shaped; it was stored as sent and totals were computed by the sandbox',
  UNKNOWN_PAYMENT_STATUS: 'a payment status outside the inferred list was stored as sent',
  UNKNOWN_FULFILLMENT_STATUS: 'a fulfillment status outside the inferred list was stored as sent',
  SUBSCRIPTION_DISABLED:
    'the sandbox disabled a webhook subscription whose deliveries kept failing (docs/webhooks.md); it is not about the request, so strict mode does not refuse it',
  UNDOCUMENTED_ENDPOINT: 'the API description does not name this endpoint: the sandbox designed it, and production may not have it',
  INFERRED_LIMIT:
    'the request goes past a limit the sandbox inferred where the API description states none; accepted, and refused under --strict (docs/divergences.md)',
  ASSUMED_DEFAULT:
    'a field the API description lists without a default or a requirement was left out; the sandbox assumed the default its docs name (docs/bookings.md), and refuses it under --strict',
  LOOPBACK_HTTP_URL:
    'a webhook URL on plain http:// to a loopback host was accepted for local receivers; the API description says "must be HTTPS", so production refuses it (refused here with --strict-webhook-urls)',
} as const;

export type WarningCode = keyof typeof WARNING_CODES;

/**
 * Warnings about what the sandbox did or allows, not about anything it had to guess: --strict
 * does not refuse them, so `exec --fail-on-warning` does not fail a run for them either.
 */
export const INFORMATIONAL_WARNINGS: ReadonlySet<string> = new Set<WarningCode>(['SUBSCRIPTION_DISABLED', 'LOOPBACK_HTTP_URL']);

export interface SandboxWarning {
  code: WarningCode;
  message: string;
}

export const warning = (code: WarningCode, message: string): SandboxWarning => ({ code, message });

/** `CODE: message`, printable ASCII only, so it is safe in a header line. */
export function formatWarning(w: SandboxWarning): string {
  return `${w.code}: ${w.message}`.replace(/[^\x20-\x7e]/g, '?').replace(/;/g, ',');
}
