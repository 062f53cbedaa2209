import type { ControlClient, DeliveryAttemptSummary, DeliverySummary } from '../control/client.ts';
import { bold, cyan, dim, green, yellow } from './output.ts';
import { controlClient, resolveWorkspace, type ControlFlags } from './trigger.ts';

export interface ListenFlags extends ControlFlags {
  forwardTo: string;
  events?: string;
  printSecret?: boolean;
  /** poll interval in ms (wall time: this is the CLI watching, not sandbox time) */
  interval?: number;
}

/**
 * `sandbox listen --forward-to <url>`: subscribes the URL (creating or reusing
 * a subscription through the control plane) and prints every delivery attempt
 * as it happens, by polling GET /__sandbox/deliveries.
 */
export async function runListen(flags: ListenFlags): Promise<void> {
  const client = controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  const events = (flags.events ?? '*').split(',').map((e) => e.trim()).filter(Boolean);
  const { subscription, secret, created } = await client.ensureSubscription({ workspaceId: workspace.id, url: flags.forwardTo, events, description: 'sandbox listen' });
  if (flags.printSecret) {
    process.stdout.write(`${secret}\n`);
    return;
  }
  process.stdout.write([
    `${green('●')} Forwarding ${bold(events.join(', '))} from ${bold(workspace.name)} to ${cyan(subscription.url)}`,
    `  signing secret  ${secret}`,
    dim(`  subscription ${subscription.id} (${created ? 'created' : 'reused'}); Ctrl+C stops listening`),
    '',
  ].join('\n') + '\n');
  await watchDeliveries(client, subscription.id, flags.interval ?? 500);
}

async function watchDeliveries(client: ControlClient, subscriptionId: string, intervalMs: number): Promise<never> {
  const seen = new Set<string>();
  const key = (d: DeliverySummary, a: DeliveryAttemptSummary) => `${d.id}:${a.number}`;
  for (const d of await client.deliveries({ subscriptionId, limit: 500 })) for (const a of d.attempts) seen.add(key(d, a));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const fresh: [DeliverySummary, DeliveryAttemptSummary][] = [];
    for (const d of await client.deliveries({ subscriptionId, limit: 100 })) {
      for (const a of d.attempts) if (!seen.has(key(d, a))) fresh.push([d, a]);
    }
    fresh.sort(([, a], [, b]) => a.at.localeCompare(b.at));
    for (const [d, a] of fresh) {
      seen.add(key(d, a));
      process.stdout.write(`${attemptLine(d, a)}\n`);
    }
  }
}

/** One line per attempt: time, event type, status, latency, attempt number, and what happens next. */
export function attemptLine(d: DeliverySummary, a: DeliveryAttemptSummary): string {
  const ok = a.response !== null && a.response.status >= 200 && a.response.status < 300;
  const status = a.response ? String(a.response.status) : 'ERR';
  const next = d.status === 'pending' && d.nextAttemptAt ? dim(`  next retry ${d.nextAttemptAt}`) : '';
  return [
    dim(a.at),
    d.eventType.padEnd(20),
    (ok ? green : yellow)(status.padStart(3)),
    `${Math.round(a.latencyMs)}ms`.padStart(7),
    `attempt ${a.number}${a.trigger === 'replay' ? ' (replay)' : ''}`,
    dim(d.id),
    a.error ? yellow(a.error) : '',
  ].filter(Boolean).join('  ') + next;
}
