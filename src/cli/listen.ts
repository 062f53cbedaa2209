import { ControlPlaneError, type ControlClient, type DeliveryAttemptSummary, type DeliverySummary, type WorkspaceSummary } from '../control/client.ts';
import { bold, cyan, dim, green, printJson, yellow } from './output.ts';
import { controlClient, type ControlFlags } from './control.ts';
import { webhookWorkspace } from './webhook-workspace.ts';
import { nextRetryAfter } from '../webhooks/retry-policy.ts';

export interface ListenFlags extends ControlFlags {
  forwardTo: string;
  events?: string;
  printSecret?: boolean;
  json?: boolean;
  /** poll interval in ms (wall time: this is the CLI watching, not sandbox time) */
  interval?: number;
}

/**
 * `sandbox listen --forward-to <url>`, as `stripe listen`: subscribes the URL
 * (creating or reusing a subscription through the control plane), prints every
 * delivery attempt as it happens (polling GET /__sandbox/deliveries), and
 * pauses the subscription when it exits, so nothing retries into a closed port.
 */
export async function runListen(flags: ListenFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await webhookWorkspace(client, flags.workspace);
  if (flags.printSecret) return printSecret(client, workspace, flags.forwardTo);
  const events = (flags.events ?? '*')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const { subscription, secret, created } = await client.ensureSubscription({
    workspaceId: workspace.id,
    url: flags.forwardTo,
    events,
    description: 'sandbox listen',
  });
  const pause = async () => {
    // what is pending now is what pausing cancels (POST /webhook-subscriptions/:id/active, issue 37)
    const pending = await client.deliveries({ subscriptionId: subscription.id, status: 'pending', limit: 500 }).catch(() => null);
    await client.setSubscriptionActive(subscription.id, { workspaceId: workspace.id, active: false });
    // issue 38: one line on what stopping did, on stderr (stdout may be --json lines)
    process.stderr.write(`${stoppedLine(subscription.id, pending?.length ?? null)}\n`);
  };
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    pause().then(
      () => process.exit(0),
      () => process.exit(0), // the sandbox is gone: there is nothing left to pause
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // what was delivered before listen started is read before the banner: a delivery made
  // once the banner is out (a script waits for it, then triggers) is always printed
  const seen = await deliveredSoFar(client, subscription.id);
  // with --json, stdout carries only the delivery lines; the banner goes to stderr
  (flags.json ? process.stderr : process.stdout).write(
    `${[
      `${green('●')} Forwarding ${bold(events.join(', '))} from ${bold(workspace.name)} to ${cyan(subscription.url)}`,
      `  ${forwardedLine(workspace, flags.workspace === undefined)}`,
      `  signing secret  ${secret}`,
      dim(`  subscription ${subscription.id} (${created ? 'created' : 'reused'}); Ctrl+C stops listening and pauses it`),
      '',
    ].join('\n')}\n`,
  );
  await watchDeliveries(client, subscription.id, seen, flags.interval ?? 500, (d, a) =>
    flags.json ? printJson(attemptJson(d, a)) : process.stdout.write(`${attemptLine(d, a)}\n`),
  );
}

/** What a stopped `listen` did with its subscription and its pending deliveries (null: not known). */
export function stoppedLine(subscriptionId: string, pending: number | null): string {
  const paused = `Stopped: subscription ${subscriptionId} is paused, so new events are not sent to it`;
  if (pending === null || pending === 0) return `${paused}; no delivery was pending`;
  const them = pending === 1 ? 'its 1 pending delivery was cancelled' : `its ${pending} pending deliveries were cancelled`;
  return `${paused}; ${them} (\`sandbox events list --status cancelled\`); \`sandbox listen\` to the same URL resumes the subscription`;
}

/** One line: which workspace is forwarded, and that another workspace's subscription has another secret. */
export function forwardedLine(workspace: WorkspaceSummary, chosen: boolean): string {
  const keys = chosen && workspace.keys[0] ? `, that of the keys ${workspace.keys[0].keyPrefix}…` : '';
  return `workspace  ${workspace.name} (${workspace.id})${keys}; each workspace has its own subscription and signing secret${chosen ? ' (--workspace picks another)' : ''}`;
}

/**
 * No side effects on an existing subscription. With none yet, one is created
 * paused, so that the secret printed is the one a later `listen` uses.
 */
async function printSecret(client: ControlClient, workspace: WorkspaceSummary, url: string): Promise<void> {
  // stdout stays the bare secret (`export WEBHOOK_SECRET=$(…)`); whose it is goes to stderr (issue 37)
  process.stderr.write(`${dim(`signing secret of ${url} in workspace ${workspace.name} (${workspace.id}); each workspace has its own`)}\n`);
  try {
    const found = await client.findSubscription({ workspaceId: workspace.id, url });
    process.stdout.write(`${found.secret}\n`);
  } catch (err) {
    if (!(err instanceof ControlPlaneError && err.status === 404)) throw err;
    const created = await client.ensureSubscription({ workspaceId: workspace.id, url, events: ['*'], description: 'sandbox listen', active: false });
    process.stdout.write(`${created.secret}\n`);
  }
}

const attemptKey = (d: DeliverySummary, a: DeliveryAttemptSummary) => `${d.id}:${a.number}`;

async function deliveredSoFar(client: ControlClient, subscriptionId: string): Promise<Set<string>> {
  const seen = new Set<string>();
  for (const d of await client.deliveries({ subscriptionId, limit: 500 })) for (const a of d.attempts) seen.add(attemptKey(d, a));
  return seen;
}

async function watchDeliveries(
  client: ControlClient,
  subscriptionId: string,
  seen: Set<string>,
  intervalMs: number,
  print: (d: DeliverySummary, a: DeliveryAttemptSummary) => void,
): Promise<never> {
  const key = attemptKey;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const fresh: [DeliverySummary, DeliveryAttemptSummary][] = [];
    for (const d of await client.deliveries({ subscriptionId, limit: 100 })) {
      for (const a of d.attempts) if (!seen.has(key(d, a))) fresh.push([d, a]);
    }
    fresh.sort(([, a], [, b]) => a.at.localeCompare(b.at));
    for (const [d, a] of fresh) {
      seen.add(key(d, a));
      print(d, a);
    }
  }
}

/** `listen --json`: one line per attempt. */
export function attemptJson(d: DeliverySummary, a: DeliveryAttemptSummary) {
  return {
    deliveryId: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    attempt: a.number,
    trigger: a.trigger,
    at: a.at,
    status: d.status,
    responseStatus: a.response?.status ?? null,
    latencyMs: a.latencyMs,
    error: a.error,
    nextAttemptAt: nextRetryAfter(d, a.number),
  };
}

/**
 * One line per attempt: time, event type, status, latency, attempt number, and what happens next.
 * One poll can bring several attempts of a delivery (a small --webhook-retry-scale): each line
 * gives the retry that followed its own attempt, not the delivery's current next retry (issue 26).
 */
export function attemptLine(d: DeliverySummary, a: DeliveryAttemptSummary): string {
  const ok = a.response !== null && a.response.status >= 200 && a.response.status < 300;
  const status = a.response ? String(a.response.status) : 'ERR';
  const nextAt = nextRetryAfter(d, a.number);
  const next = nextAt ? dim(`  next retry ${nextAt}`) : '';
  return (
    [
      dim(a.at),
      d.eventType.padEnd(20),
      (ok ? green : yellow)(status.padStart(3)),
      `${Math.round(a.latencyMs)}ms`.padStart(7),
      `attempt ${a.number}${a.trigger === 'replay' ? ' (replay)' : ''}`,
      dim(d.id),
      a.error ? yellow(a.error) : '',
    ]
      .filter(Boolean)
      .join('  ') + next
  );
}
