import type { ControlClient } from '../control/client.ts';
import { printJson } from './output.ts';
import { say } from './format.ts';
import { deliveryTable, type ListedDelivery } from './delivery-lines.ts';
import { formatMs } from './time-span.ts';

/**
 * `sandbox events wait` without a delivery id (docs/cli.md, "Webhook deliveries"): every
 * delivery pending now, and every one they lead to (a duplicate a rule makes, a held one),
 * followed until none is pending. Each step advances the workspace clock of the delivery due
 * first to its time, as `events wait <id>` does for one, so what delivery rules hold is
 * released on a manual clock and nothing sleeps. Exit 0 when each of them succeeded, 1 when
 * one gave up (failed, cancelled, expired).
 */
export interface WaitAllProgress {
  moved: number;
  /** every delivery seen pending, as last read */
  seen: Map<string, ListedDelivery>;
  inFlight: boolean;
  over: boolean;
}

/** A receiver answers within the attempt timeout (10 s by default): nothing moving for this long is stuck. */
const STALL_MS = 60_000;
const POLL_MS = 50;
const PAGE = 500;

export async function followAll(client: ControlClient, workspaceId: string | undefined, budget: number, progress: WaitAllProgress): Promise<ListedDelivery[]> {
  let seen = '';
  let lastChange = Date.now();
  while (!progress.over) {
    const pending: ListedDelivery[] = await client.deliveries({ workspaceId, status: 'pending', limit: PAGE });
    for (const d of pending) progress.seen.set(d.id, d);
    if (pending.length === 0) break;
    const state = pending.map((d) => `${d.id}:${d.attempts.length}:${d.nextAttemptAt}`).join('|');
    if (state !== seen) [seen, lastChange] = [state, Date.now()];
    const clocks = new Map<string, number>();
    for (const d of pending) if (!clocks.has(d.workspaceId)) clocks.set(d.workspaceId, (await client.workspaceClock(d.workspaceId)).nowMs);
    const dues = pending.map((d) => ({ d, due: d.nextAttemptAt ? Date.parse(d.nextAttemptAt) - clocks.get(d.workspaceId)! : 0 }));
    progress.inFlight = dues.some((x) => x.due <= 0);
    if (!progress.inFlight) {
      const next = dues.reduce((a, b) => (b.due < a.due ? b : a));
      if (progress.moved + next.due > budget)
        throw new Error(
          `${pending.length} ${pending.length === 1 ? 'delivery is' : 'deliveries are'} still pending after ${formatMs(progress.moved)} of sandbox time: the next, ${next.d.id} at ${next.d.nextAttemptAt}, is past --advance-up-to ${formatMs(budget)}`,
        );
      await client.advanceWorkspaceClock(next.d.workspaceId, next.due);
      progress.moved += next.due;
      continue;
    }
    // an attempt is being made: its answer comes in real time
    if (Date.now() - lastChange > STALL_MS)
      throw new Error(`no pending delivery has moved for ${STALL_MS / 1000} s (an attempt in flight?); \`sandbox events list --status pending\` shows them`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return finalStates(client, workspaceId, progress.seen);
}

/** The deliveries followed, as they ended, oldest first. */
async function finalStates(client: ControlClient, workspaceId: string | undefined, seen: Map<string, ListedDelivery>): Promise<ListedDelivery[]> {
  const recent = new Map((await client.deliveries({ workspaceId, limit: PAGE })).map((d) => [d.id, d]));
  const out: ListedDelivery[] = [];
  for (const id of seen.keys()) out.push(recent.get(id) ?? (await client.delivery(id)));
  return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

export function finishAll(deliveries: readonly ListedDelivery[], moved: number, json: boolean | undefined): void {
  const failed = deliveries.filter((d) => d.status !== 'succeeded');
  if (json) printJson({ deliveries, movedMs: moved });
  else if (deliveries.length) say(deliveryTable([...deliveries].reverse()));
  const n = `${deliveries.length} ${deliveries.length === 1 ? 'delivery' : 'deliveries'}`;
  if (failed.length)
    throw new Error(`${failed.length} of ${n} did not succeed (clock advanced ${formatMs(moved)}): ${failed.map((d) => `${d.id} ${d.status}`).join(', ')}`);
  if (!json) say(deliveries.length ? `${n} succeeded (clock advanced ${formatMs(moved)})` : 'No delivery was pending');
}
