import type { Clock } from '../core/clock.ts';
import type { StoredAttempt } from './attempt-record.ts';
import type { StoredDelivery } from './outbox.ts';

type Trigger = StoredAttempt['trigger'];

/**
 * The dispatcher's timers on the sandbox clock (./dispatcher.ts), one per pending delivery: its
 * next attempt, a retry or, for a delivery a fault rule holds, its first. Each is labelled for
 * `clock advance --to-next`, and runs on the delivery's workspace clock, even when rescheduled
 * after a reset.
 */
export class DeliveryTimers {
  private readonly timers = new Map<string, () => void>();

  /** `attempt`: makes the attempt once `after` has settled, and answers the work it started. */
  constructor(
    private readonly clock: Clock,
    private readonly attempt: (delivery: StoredDelivery, trigger: Trigger, after: Promise<unknown>) => Promise<unknown>,
  ) {}

  /** `after`: what the attempt waits for first (a new row's durability). */
  schedule(delivery: StoredDelivery, atMs: number, after: Promise<unknown> = Promise.resolve()): void {
    this.forget(delivery.id);
    const first = delivery.attempts.length === 0;
    const fault = delivery.fault;
    const held = first && fault ? `, ${fault.duplicateOf ? `duplicate of ${fault.duplicateOf}` : 'held'} by ${fault.ruleId}` : '';
    const cancel = this.clock.schedule(
      atMs,
      () => {
        this.timers.delete(delivery.id);
        const work = this.attempt(delivery, first ? 'initial' : 'retry', after);
        // On a manual clock, advance() waits for the attempt, so one advance runs a whole chain of retries.
        return this.clock.mode === 'manual' ? work : undefined;
      },
      delivery.workspaceId,
      { label: `webhook ${first ? 'delivery' : 'retry'} ${delivery.id} (${delivery.eventType}${held})` },
    );
    this.timers.set(delivery.id, cancel);
  }

  forget(id: string): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
  }

  cancelAll(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }
}
