/**
 * Attempts in flight to one subscription at a time (docs/webhooks.md,
 * "Receiver limits"). A slow receiver then ties up at most this many sockets;
 * its further attempts wait their turn and other subscriptions are not held.
 */
export const MAX_IN_FLIGHT_PER_SUBSCRIPTION = 4;

/** The in-flight slots of every subscription: a counting semaphore per subscription id. */
export class SubscriptionSlots {
  private readonly slots = new Map<string, { active: number; waiting: (() => void)[] }>();

  /** Waits for one of the subscription's MAX_IN_FLIGHT_PER_SUBSCRIPTION slots; returns its release. */
  async acquire(subscriptionId: string): Promise<() => void> {
    let entry = this.slots.get(subscriptionId);
    if (!entry) this.slots.set(subscriptionId, (entry = { active: 0, waiting: [] }));
    if (entry.active >= MAX_IN_FLIGHT_PER_SUBSCRIPTION) await new Promise<void>((resolve) => entry.waiting.push(resolve));
    else entry.active++;
    return () => {
      const next = entry.waiting.shift();
      if (next)
        next(); // the slot passes straight to the next attempt in line
      else if (--entry.active === 0) this.slots.delete(subscriptionId);
    };
  }
}
