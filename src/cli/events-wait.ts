import { printJson } from './output.ts';
import { say } from './format.ts';
import { controlClient, type ScriptFlags } from './control.ts';
import { parseDuration } from './duration.ts';
import { deliveryDetails, type ListedDelivery } from './delivery-lines.ts';
import { formatMs } from './time-span.ts';

/**
 * `sandbox events wait <delivery> [--timeout <duration>]` (issue 38): advances
 * the delivery's workspace clock to each retry in turn (as `workspace advance`
 * does, so other workspaces, other test workers, are not moved) until the
 * delivery succeeded (exit 0) or gave up (failed, cancelled, expired: exit 1).
 * --timeout bounds the sandbox time it may move; an attempt in flight is waited
 * for in real time, at most STALL_MS without any change.
 */
export interface EventsWaitFlags extends ScriptFlags {
  timeout?: string;
}

/** A receiver answers within the attempt timeout (10 s by default): a delivery that does not move for this long is stuck. */
const STALL_MS = 60_000;
const POLL_MS = 50;

export async function runEventsWait(deliveryId: string, flags: EventsWaitFlags): Promise<void> {
  const budget = flags.timeout === undefined ? Infinity : parseDuration(flags.timeout);
  const client = await controlClient(flags);
  let moved = 0;
  let seen = '';
  let lastChange = Date.now();
  for (;;) {
    const delivery: ListedDelivery = await client.delivery(deliveryId);
    if (delivery.status !== 'pending') return finish(delivery, moved, flags);
    const progress = `${delivery.attempts.length}|${delivery.nextAttemptAt}`;
    if (progress !== seen) [seen, lastChange] = [progress, Date.now()];
    const due = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - (await client.workspaceClock(delivery.workspaceId)).nowMs : 0;
    if (due > 0) {
      if (moved + due > budget)
        throw new Error(
          `${deliveryId} is still pending after ${formatMs(moved)} of sandbox time: its next retry, at ${delivery.nextAttemptAt}, is past --timeout ${flags.timeout}`,
        );
      await client.advanceWorkspaceClock(delivery.workspaceId, due);
      moved += due;
      continue;
    }
    // an attempt is being made (or is due now on a real clock): its answer comes in real time
    if (Date.now() - lastChange > STALL_MS)
      throw new Error(
        `${deliveryId} has not moved for ${STALL_MS / 1000} s (attempt ${delivery.attempts.length + 1} in flight?); \`sandbox events show ${deliveryId}\` shows where it is`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function finish(delivery: ListedDelivery, moved: number, flags: EventsWaitFlags): void {
  if (flags.json) printJson({ ...delivery, movedMs: moved });
  else say(deliveryDetails(delivery));
  const after = `after ${delivery.attempts.length} ${delivery.attempts.length === 1 ? 'attempt' : 'attempts'} (clock advanced ${formatMs(moved)})`;
  if (delivery.status !== 'succeeded') throw new Error(`${delivery.id} ${delivery.status} ${after}: ${delivery.reason ?? 'no reason given'}`);
  if (!flags.json) say(`${delivery.id} succeeded ${after}`);
}
