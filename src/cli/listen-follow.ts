import { ControlPlaneError, type ControlClient, type DeliveryAttemptSummary, type DeliverySummary, type WorkspaceSummary } from '../control/client.ts';
import { SandboxWatch } from './listen-watch.ts';
import { webhookWorkspace } from './webhook-workspace.ts';

/**
 * The subscription `sandbox listen` forwards through, kept alive across what a user does to the
 * sandbox (docs/webhooks.md, "CLI"), as `stripe listen` keeps forwarding:
 * - a reset, a snapshot restore or a state import takes the subscription away: it is made again
 *   (or the one the new state holds for the URL is resumed), in one line, with the new signing
 *   secret when it changed;
 * - a sandbox that stops is waited for on the same URL, and subscribed to again when it is back;
 *   with `reconnect: false` listen ends instead.
 */
export interface Subscribed {
  workspace: WorkspaceSummary;
  id: string;
  /** the URL as the subscription holds it */
  url: string;
  secret: string;
  created: boolean;
}

export interface FollowOptions {
  forwardTo: string;
  /** --workspace, resolved again after each reset and reconnection (the new state may hold it under another id) */
  workspace: string | undefined;
  events: string[];
  reconnect: boolean;
  /** wall time between polls of the deliveries, and between knocks on a stopped sandbox's door */
  intervalMs: number;
  /** the lines listen says besides the deliveries (stdout, or stderr under --json) */
  say: (line: string) => void;
  print: (d: DeliverySummary, a: DeliveryAttemptSummary) => void;
}

const attemptKey = (d: DeliverySummary, a: DeliveryAttemptSummary) => `${d.id}:${a.number}`;
const notRunning = (err: unknown): boolean => err instanceof Error && err.name === 'SandboxNotRunningError';
/** Nothing answers there, or a sandbox that is stopping (503 to what comes after its stop began): it is going or gone. */
const goneOrGoing = (err: unknown): boolean => notRunning(err) || (err instanceof ControlPlaneError && err.status === 503);

export class Follower {
  readonly #seen = new Set<string>();
  #handledResets = 0;
  #stopping = false;

  private constructor(
    private readonly client: ControlClient,
    private readonly options: FollowOptions,
    private watch: SandboxWatch,
    public current: Subscribed,
  ) {}

  /** The stream first, then the subscription: a reset that comes between the two is not missed. */
  static async start(client: ControlClient, options: FollowOptions): Promise<Follower> {
    const watch = await SandboxWatch.open(client);
    try {
      const follower = new Follower(client, options, watch, await subscribe(client, options));
      // what was delivered before listen started is read before the banner: a delivery made
      // once the banner is out (a script waits for it, then triggers) is always printed
      await follower.#markDelivered();
      return follower;
    } catch (err) {
      watch.close();
      throw err;
    }
  }

  /** Polls the deliveries and prints each new attempt; follows resets and stops, until `stop()`. */
  async run(): Promise<void> {
    while (!this.#stopping) {
      await this.watch.pause(this.options.intervalMs);
      if (this.#stopping) return;
      try {
        if (this.watch.ended) await this.#awaitReturn();
        else if (this.watch.resets !== this.#handledResets) await this.#afterReset();
        else await this.#poll();
      } catch (err) {
        if (!goneOrGoing(err)) throw err;
        this.watch.close(); // the next turn waits for the sandbox to come back
      }
    }
  }

  /** Ends the loop, pauses the subscription (cancelling its pending deliveries) and answers the line that says what stopping did. */
  async stop(): Promise<string> {
    this.#stopping = true;
    this.watch.close();
    const { id, workspace } = this.current;
    try {
      // what is pending now is what pausing cancels (POST /__sandbox/webhook-subscriptions/:id/active)
      const pending = await this.client.deliveries({ subscriptionId: id, status: 'pending', limit: 500 }).catch(() => null);
      await this.client.setSubscriptionActive(id, { workspaceId: workspace.id, active: false });
      return stoppedLine(id, pending?.length ?? null);
    } catch (err) {
      if (notRunning(err)) return `Stopped; the sandbox at ${this.client.baseUrl} is not running, so subscription ${id} was left as it was`;
      if (err instanceof ControlPlaneError && err.status === 404) return `Stopped; subscription ${id} is gone from the sandbox, so there was nothing to pause`;
      return `Stopped; subscription ${id} could not be paused: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  async #poll(): Promise<void> {
    const fresh: [DeliverySummary, DeliveryAttemptSummary][] = [];
    for (const d of await this.client.deliveries({ subscriptionId: this.current.id, limit: 100 })) {
      for (const a of d.attempts) if (!this.#seen.has(attemptKey(d, a))) fresh.push([d, a]);
    }
    fresh.sort(([, a], [, b]) => a.at.localeCompare(b.at));
    for (const [d, a] of fresh) {
      this.#seen.add(attemptKey(d, a));
      this.options.print(d, a);
    }
  }

  /** After a reset: subscribed again, said in one line when the subscription or its secret changed (a reset of another workspace changes neither). */
  async #afterReset(): Promise<void> {
    this.#handledResets = this.watch.resets;
    const before = this.current;
    const after = await this.#resubscribe("the sandbox's state was replaced");
    if (after.id === before.id && after.secret === before.secret) return;
    const how = after.created ? 'created' : 'resumed, as the new state holds it';
    this.options.say(
      `↻ The sandbox's state was replaced (a reset, a snapshot restore or a state import): subscription ${before.id} is gone; forwarding again through ${after.id} (${how})${secretLine(before, after)}`,
    );
  }

  /** The stream ended: the sandbox stopped. Waits for one on the same URL (or ends listen), then subscribes there again. */
  async #awaitReturn(): Promise<void> {
    const url = this.client.baseUrl;
    if (!this.options.reconnect) throw new Error(`the sandbox at ${url} stopped, and listen stops with it (--no-reconnect)`);
    this.options.say(`■ The sandbox at ${url} stopped; waiting for it to come back there (Ctrl+C stops listening)`);
    for (;;) {
      try {
        this.watch = await SandboxWatch.open(this.client);
        break;
      } catch (err) {
        // not there yet, or there and still starting or stopping
        if (!goneOrGoing(err)) throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.intervalMs));
      if (this.#stopping) return;
    }
    this.#handledResets = 0;
    const before = this.current;
    const after = await this.#resubscribe(`the sandbox at ${url} is back`);
    this.options.say(
      `● The sandbox at ${url} is back: forwarding through subscription ${after.id} (${after.created ? 'created' : 'reused'})${secretLine(before, after)}`,
    );
  }

  /** `what` says what happened, for the one line of a failure (the workspace --workspace named may be gone from the new state). */
  async #resubscribe(what: string): Promise<Subscribed> {
    try {
      this.current = await subscribe(this.client, this.options);
    } catch (err) {
      if (goneOrGoing(err)) throw err;
      throw new Error(`${what}, and listen cannot subscribe again: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.#markDelivered();
    return this.current;
  }

  /** A reused subscription's attempts so far are not new; a created one has none. */
  async #markDelivered(): Promise<void> {
    if (this.current.created) return;
    for (const d of await this.client.deliveries({ subscriptionId: this.current.id, limit: 500 })) for (const a of d.attempts) this.#seen.add(attemptKey(d, a));
  }
}

/** The new signing secret as the banner printed the first, on a line of its own (in the same write, so a reader gets both together); '' when it is the same. */
const secretLine = (before: Subscribed, after: Subscribed): string => (after.secret === before.secret ? '' : `\n  signing secret  ${after.secret}`);

/** Creates, or reuses by URL (and resumes), the subscription in the workspace --workspace names, or the default one. */
async function subscribe(client: ControlClient, options: Pick<FollowOptions, 'forwardTo' | 'workspace' | 'events'>): Promise<Subscribed> {
  const workspace = await webhookWorkspace(client, options.workspace);
  const { subscription, secret, created } = await client.ensureSubscription({
    workspaceId: workspace.id,
    url: options.forwardTo,
    events: options.events,
    description: 'sandbox listen',
  });
  return { workspace, id: subscription.id, url: subscription.url, secret, created };
}

/** What a stopped `listen` did with its subscription and its pending deliveries (null: not known). */
export function stoppedLine(subscriptionId: string, pending: number | null): string {
  const paused = `Stopped: subscription ${subscriptionId} is paused, so new events are not sent to it`;
  if (pending === null || pending === 0) return `${paused}; no delivery was pending`;
  const them = pending === 1 ? 'its 1 pending delivery was cancelled' : `its ${pending} pending deliveries were cancelled`;
  return `${paused}; ${them} (\`sandbox events list --status cancelled\`); \`sandbox listen\` to the same URL resumes the subscription`;
}
