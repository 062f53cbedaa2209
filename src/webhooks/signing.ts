import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is
 * `whsec_` + base64 of 32 random bytes; each request carries `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`
 * (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`). The API description leaves
 * the scheme "not shown" (docs/webhooks.md).
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs exactly the bytes that will be sent: `body` must be the raw body string. */
export function signatureHeaders(secret: string, webhookId: string, timestampSeconds: number, body: string): SignatureHeaders {
  const signature = new Webhook(secret).sign(webhookId, new Date(timestampSeconds * 1000), body);
  return { 'webhook-id': webhookId, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signature };
}

/**
 * The signature timestamp is transport time, not domain time: receivers check
 * it against their own wall clock (the standard verifier allows 5 minutes), so
 * it must be the real time of the attempt even when the sandbox clock has been
 * moved or is manual. This is the one place webhooks read the wall clock.
 */
export const wallClockSeconds = (): number => Math.floor(Date.now() / 1000);
