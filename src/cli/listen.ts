import { ControlPlaneError, type ControlClient, type DeliveryAttemptSummary, type DeliverySummary, type WorkspaceSummary } from '../control/client.ts';
import { bold, cyan, dim, green, printJson, yellow } from './output.ts';
import { controlClient, type ControlFlags } from './control.ts';
import { webhookWorkspace } from './webhook-workspace.ts';
import { nextRetryAfter } from '../webhooks/retry-policy.ts';
import { Follower } from './listen-follow.ts';

export interface ListenFlags extends ControlFlags {
  forwardTo: string;
  events?: string;
  printSecret?: boolean;
  json?: boolean;
  /** false with --no-reconnect: listen ends when the sandbox stops, rather than wait for it */
  reconnect?: boolean;
  /** poll interval in ms (wall time: this is the CLI watching, not sandbox time) */
  interval?: number;
}

/**
 * `sandbox listen --forward-to <url>`, as `stripe listen`: subscribes the URL
 * (creating or reusing a subscription through the control plane), prints every
 * delivery attempt as it happens (polling GET /__sandbox/deliveries), follows
 * the sandbox through resets and restarts (./listen-follow.ts), and pauses the
 * subscription when it exits, so nothing retries into a closed port.
 */
export async function runListen(flags: ListenFlags): Promise<void> {
  const client = await controlClient(flags);
  if (flags.printSecret) return printSecret(client, await webhookWorkspace(client, flags.workspace), flags.forwardTo);
  const events = (flags.events ?? '*')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  // with --json, stdout carries only the delivery lines; the banner and what listen says go to stderr
  const info = flags.json ? process.stderr : process.stdout;
  const follower = await Follower.start(client, {
    forwardTo: flags.forwardTo,
    workspace: flags.workspace,
    events,
    reconnect: flags.reconnect ?? true,
    intervalMs: flags.interval ?? 500,
    say: (line) => info.write(`${line}\n`),
    print: (d, a) => (flags.json ? printJson(attemptJson(d, a)) : process.stdout.write(`${attemptLine(d, a)}\n`)),
  });
  // Ctrl+C and SIGTERM alike: one line on stderr (stdout may be --json lines) on what stopping did
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void follower.stop().then((line) => {
      process.stderr.write(`${line}\n`);
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const { workspace, url, secret, id, created } = follower.current;
  info.write(
    `${[
      `${green('●')} Forwarding ${bold(events.join(', '))} from ${bold(workspace.name)} to ${cyan(url)}`,
      `  ${forwardedLine(workspace, flags.workspace === undefined)}`,
      `  signing secret  ${secret}`,
      dim(`  subscription ${id} (${created ? 'created' : 'reused'}); Ctrl+C stops listening and pauses it`),
      '',
    ].join('\n')}\n`,
  );
  await follower.run();
  // the loop ends only when a signal stopped it: the stop line and the exit are the handler's
  await new Promise<never>(() => undefined);
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
  // stdout stays the bare secret (`export WEBHOOK_SECRET=$(…)`); whose it is goes to stderr (docs/webhooks.md, "CLI")
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
 * gives the retry that followed its own attempt, not the delivery's current next retry.
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
