import type { ControlClient } from '../control/client.ts';
import { LONGEST_RETRIES_MS } from '../webhooks/retry-policy.ts';
import { printJson } from './output.ts';
import { say } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';
import { deliveryDetails, type ListedDelivery } from './delivery-lines.ts';
import { formatMs } from './time-span.ts';

/**
 * `sandbox events wait <delivery> [--timeout <duration>] [--advance-up-to <duration>]`
 * (docs/cli.md, "Webhook deliveries"): advances the delivery's workspace clock to each retry in
 * turn (as `workspace advance` does, so other workspaces, other test workers, are not moved)
 * until the delivery succeeded (exit 0) or gave up (failed, cancelled, expired: exit 1).
 *
 * Two bounds, two kinds of time. --timeout is wall time, as every CLI's timeout is: the most this
 * command waits, whatever the sandbox clock does. --advance-up-to is sandbox time: the most it
 * moves the workspace's clock, by default as far as a delivery's retries can go
 * (LONGEST_RETRIES_MS, src/webhooks/retry-policy.ts). An attempt in flight is waited for in real
 * time, at most STALL_MS without any change.
 */
export interface EventsWaitFlags extends ScriptFlags {
  /** wall time, milliseconds */
  timeout?: number;
  /** sandbox time, milliseconds */
  advanceUpTo?: number;
}

/** A receiver answers within the attempt timeout (10 s by default): a delivery that does not move for this long is stuck. */
const STALL_MS = 60_000;
const POLL_MS = 50;

/** Where the wait is, for the line that says why it ended early. */
interface Progress {
  moved: number;
  delivery?: ListedDelivery;
  /** an attempt is being made: the wait is on the receiver, in real time */
  inFlight: boolean;
  /** set once --timeout has passed: the loop stops at its next step */
  over: boolean;
}

export async function runEventsWait(deliveryId: string | undefined, flags: EventsWaitFlags): Promise<void> {
  if (deliveryId === undefined) return runEventsWaitAll(flags);
  const client = await controlClient(flags);
  const progress: Progress = { moved: 0, inFlight: false, over: false };
  const following = follow(client, deliveryId, flags.advanceUpTo ?? LONGEST_RETRIES_MS, progress);
  if (flags.timeout === undefined) return finish(await following, progress.moved, flags);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      progress.over = true;
      reject(new Error(wallTimeLine(deliveryId, flags.timeout!, progress)));
    }, flags.timeout);
  });
  following.catch(() => {}); // once the deadline has passed, what the loop does next is no one's concern
  try {
    finish(await Promise.race([following, deadline]), progress.moved, flags);
  } finally {
    clearTimeout(timer);
  }
}

/** Without an id: every pending delivery (of --workspace, else of every workspace), followed until none is pending (./events-wait-all.ts). */
async function runEventsWaitAll(flags: EventsWaitFlags): Promise<void> {
  const { followAll, finishAll } = await import('./events-wait-all.ts');
  const client = await controlClient(flags);
  const workspaceId = flags.workspace === undefined ? undefined : (await resolveWorkspace(client, flags.workspace)).id;
  const progress = { moved: 0, seen: new Map(), inFlight: false, over: false };
  const following = followAll(client, workspaceId, flags.advanceUpTo ?? LONGEST_RETRIES_MS, progress);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    if (flags.timeout === undefined) return;
    timer = setTimeout(() => {
      progress.over = true;
      const where = progress.inFlight ? 'an attempt is in flight' : `${progress.seen.size} followed so far`;
      reject(
        new Error(
          `deliveries are still pending after --timeout ${formatMs(flags.timeout!)} (wall time): ${where}; \`sandbox events list --status pending\` shows them`,
        ),
      );
    }, flags.timeout);
  });
  following.catch(() => {});
  try {
    finishAll(await Promise.race([following, deadline]), progress.moved, flags.json);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads and advances until the delivery is no longer pending; throws past --advance-up-to or a stall. */
async function follow(client: ControlClient, deliveryId: string, budget: number, progress: Progress): Promise<ListedDelivery> {
  let seen = '';
  let lastChange = Date.now();
  while (!progress.over) {
    const delivery: ListedDelivery = await client.delivery(deliveryId);
    progress.delivery = delivery;
    if (delivery.status !== 'pending') return delivery;
    const state = `${delivery.attempts.length}|${delivery.nextAttemptAt}`;
    if (state !== seen) [seen, lastChange] = [state, Date.now()];
    const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - (await client.workspaceClock(delivery.workspaceId)).nowMs : 0;
    progress.inFlight = due <= 0;
    if (due > 0) {
      if (progress.moved + due > budget)
        throw new Error(
          `${deliveryId} is still pending after ${formatMs(progress.moved)} of sandbox time: its next retry, at ${delivery.nextAttemptAt}, is past --advance-up-to ${formatMs(budget)}`,
        );
      if (progress.over) break;
      await client.advanceWorkspaceClock(delivery.workspaceId, due);
      progress.moved += due;
      continue;
    }
    // an attempt is being made (or is due now on a real clock): its answer comes in real time
    if (Date.now() - lastChange > STALL_MS)
      throw new Error(
        `${deliveryId} has not moved for ${STALL_MS / 1000} s (attempt ${delivery.attempts.length + 1} in flight?); \`sandbox events show ${deliveryId}\` shows where it is`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return progress.delivery!;
}

/** `dlv_… is still pending after --timeout 2s (wall time): attempt 1 is in flight; …` */
function wallTimeLine(deliveryId: string, timeoutMs: number, progress: Progress): string {
  const attempts = progress.delivery?.attempts.length ?? 0;
  const where =
    progress.delivery === undefined
      ? 'the sandbox has not answered yet'
      : progress.inFlight
        ? `attempt ${attempts + 1} is in flight`
        : `${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} so far`;
  const moved = progress.moved > 0 ? `, the clock advanced ${formatMs(progress.moved)}` : '';
  return `${deliveryId} is still pending after --timeout ${formatMs(timeoutMs)} (wall time): ${where}${moved}; \`sandbox events show ${deliveryId}\` shows where it is`;
}

function finish(delivery: ListedDelivery, moved: number, flags: EventsWaitFlags): void {
  if (flags.json) printJson({ ...delivery, movedMs: moved });
  else say(deliveryDetails(delivery));
  const after = `after ${delivery.attempts.length} ${delivery.attempts.length === 1 ? 'attempt' : 'attempts'} (clock advanced ${formatMs(moved)})`;
  if (delivery.status !== 'succeeded') throw new Error(`${delivery.id} ${delivery.status} ${after}: ${delivery.reason ?? 'no reason given'}`);
  if (!flags.json) say(`${delivery.id} succeeded ${after}`);
}
