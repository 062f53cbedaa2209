import { measureWebhookLatency } from './webhook-latency.ts';

/** Section 5: emit-to-receipt latency of webhook deliveries (bench/webhook-latency.ts). */
export type WebhookResult = { status: 'error'; message: string } | { status: 'ok'; count: number; medianMs: number; p99Ms: number };

export async function runWebhooks(count: number, log: (line: string) => void): Promise<WebhookResult> {
  log(`webhooks: measureWebhookLatency(${count}) ...`);
  try {
    return { status: 'ok', ...(await measureWebhookLatency(count)) };
  } catch (err) {
    return { status: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}
