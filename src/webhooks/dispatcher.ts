import { conflict } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import type { DomainEvent, EventBus } from '../core/events.ts';
import type { FaultInjector } from '../core/faults.ts';
import type { SelfGuard } from '../core/self-guard.ts';
import type { Op, Store } from '../storage/index.ts';
import { isCatalogueEvent, type WebhookEventType } from './catalogue.ts';
import { AttemptAborted, type SendResult } from './delivery.ts';
import { requestHeaders, storedAttempt, type StoredAttempt } from './attempt-record.ts';
import { sendGuarded } from './guarded-send.ts';
import { DeliveryTimers } from './delivery-timers.ts';
import { DeliveryWork } from './delivery-work.ts';
import { matchesAny } from './matching.ts';
import { DELIVERY_LOG_TRIM_BATCH, Outbox, pendingDelivery, type StoredDelivery } from './outbox.ts';
import { deliveryUpdate, settle } from './attempt-outcome.ts';
import { stoppedReason } from './subscription-health.ts';
import { signatureHeaders, wallClockSeconds } from './signing.ts';
import { sampleEventData, type EventData, type SampleEvents } from './sample-data.ts';
import { healthOf, type SubscriptionSource } from './subscriptions.ts';
import { SubscriptionSlots } from './subscription-slots.ts';
import { type DeliveryFault, webhookIdOf } from './delivery-fault-record.ts';
import { DeliveryFaults, dropsFirstAttempt, droppedError, duplicateDue, duplicateOf, isHeld, overtakers } from './delivery-faults.ts';

/** The body every delivery carries (docs/webhooks.md, "Payload"). */
export function payloadOf(event: DomainEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, timestamp: event.createdAt, workspace_id: event.workspaceId, data: event.data });
}

type Trigger = StoredAttempt['trigger'];

/**
 * What the dispatcher works with: a part of the sandbox context, named here so
 * that the context can hold the dispatcher (`ctx.webhooks`) without a cycle.
 */
export interface DispatcherDeps {
  store: Store;
  clock: Clock;
  bus: EventBus;
  selfGuard: SelfGuard;
  options: { webhookTimeoutMs: number; webhookRetryScale: number; webhookMaxPending: number };
  /** the subscriptions, as the webhooks area gives them (subscriptions.ts) */
  subscriptions: SubscriptionSource;
  /** the areas' sample event data, by family (sample-data.ts) */
  samples: SampleEvents;
  /** the fault rules; the delivery rules among them shape deliveries (delivery-faults.ts) */
  faults: FaultInjector;
}

/**
 * Turns domain events into signed deliveries. Subscribes to the bus, writes
 * each delivery to the outbox before sending, sends the first attempt at once
 * and schedules retries on the sandbox clock, so advancing the clock runs them
 * (API description, "Events"; docs/webhooks.md). One per sandbox, built by
 * createSandbox as `ctx.webhooks` and started by its background service
 * (service.ts); the control plane reads the outbox and replays through it.
 */
export class WebhookDispatcher {
  readonly outbox: Outbox;
  private readonly timers: DeliveryTimers;
  private readonly work = new DeliveryWork();
  private readonly enqueued = new Map<string, Promise<string[]>>();
  /** per workspace: deliveries finished since the log was last trimmed on finishing */
  private readonly finishedSinceTrim = new Map<string, number>();
  /** per subscription: attempts sending now, and the ones waiting for a slot */
  private readonly slots = new SubscriptionSlots();
  private stopping = new AbortController();
  private unsubscribe: (() => void) | null = null;
  private readonly faults: DeliveryFaults;

  constructor(
    private readonly ctx: DispatcherDeps,
    readonly timeoutMs = ctx.options.webhookTimeoutMs,
  ) {
    this.outbox = new Outbox(ctx.store);
    this.faults = new DeliveryFaults(ctx.faults);
    this.timers = new DeliveryTimers(ctx.clock, (d, trigger, after) => this.work.track(after.then(() => this.attempt(d.workspaceId, d.id, trigger))));
  }

  start(): void {
    this.unsubscribe = this.ctx.bus.on('domain', (event) => this.onEvent(event));
    this.reschedulePending();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.timers.cancelAll();
    this.stopping.abort();
    await this.idle();
  }

  /** The store was replaced (reset, snapshot restore): forget timers, pick up whatever is pending now. */
  afterReset(): void {
    this.timers.cancelAll();
    this.reschedulePending();
  }

  /** Resolves when the delivery work running now has ended (a retry scheduled); not what starts meanwhile (src/control/clock-next.ts). */
  settled(): Promise<unknown> {
    return this.work.settled();
  }

  /** Resolves when no delivery work is running (tests, benchmarks, replay). */
  idle(): Promise<void> {
    return this.work.idle();
  }

  /** Sample `data` for an event triggered without data, from the workspace's records (sample-data.ts); null when there are none. */
  sampleData(workspaceId: string, type: WebhookEventType, nowIso: string): EventData | null {
    return sampleEventData(this.ctx.samples, this.ctx.store, workspaceId, type, nowIso);
  }

  /** The delivery ids an event produced, once they are in the outbox ([] when nothing matched). */
  whenEnqueued(eventId: string): Promise<string[]> {
    return this.enqueued.get(eventId) ?? Promise.resolve([]);
  }

  /** Sends a delivery again now, with the same webhook-id; does not count against max_retries. */
  replay(delivery: StoredDelivery): Promise<StoredDelivery | undefined> {
    if (!this.ctx.subscriptions.get(delivery.workspaceId, delivery.subscriptionId)) {
      throw conflict('SUBSCRIPTION_GONE', `Subscription ${delivery.subscriptionId} no longer exists; there is nowhere to send delivery ${delivery.id}`);
    }
    return this.work.track(this.attempt(delivery.workspaceId, delivery.id, 'replay'));
  }

  /**
   * The subscription was just paused (`sandbox listen` stopping): its pending deliveries are
   * cancelled now, not when their retry comes up, so none shows "pending, next retry …" after
   * listen is gone. Each waits for an attempt in flight on it, as attempts do.
   */
  async cancelPendingOf(workspaceId: string, subscriptionId: string): Promise<number> {
    const pending = this.outbox.pending().filter((d) => d.workspaceId === workspaceId && d.subscriptionId === subscriptionId);
    const cancelled = await Promise.all(
      pending.map((d) => {
        this.timers.forget(d.id);
        return this.work.track(
          this.work.locked(d.id, async () => {
            const now = this.outbox.row(workspaceId, d.id);
            const subscription = this.ctx.subscriptions.get(workspaceId, subscriptionId);
            if (now?.status !== 'pending' || subscription?.active) return false;
            await this.cancel(now, subscription ? stoppedReason(subscription) : 'subscription deleted');
            return true;
          }),
        );
      }),
    );
    return cancelled.filter(Boolean).length;
  }

  private onEvent(event: DomainEvent): void {
    if (!isCatalogueEvent(event.type)) return;
    const work = this.work.track(this.enqueue(event));
    this.enqueued.set(event.id, work);
    void work.finally(() => this.enqueued.delete(event.id));
  }

  /** Paused subscriptions get nothing: events that arrive while inactive are never delivered. */
  private async enqueue(event: DomainEvent): Promise<string[]> {
    const subscriptions = this.ctx.subscriptions.list(event.workspaceId).filter((s) => s.active && matchesAny(s.events, event.type));
    if (subscriptions.length === 0) return [];
    const body = payloadOf(event);
    const now = this.ctx.clock.iso();
    const deliveries: StoredDelivery[] = subscriptions.map((s) => {
      // decided now, in the order events arrive, so a seeded rule fires on the same ones every run;
      // on the workspace's clock, which its timers run on
      const plan = this.faults.plan({ workspaceId: event.workspaceId, subscriptionId: s.id, eventType: event.type }, this.ctx.clock.nowIn(event.workspaceId));
      const delivery = pendingDelivery(event, s, body, now);
      return plan ? { ...delivery, fault: plan.fault, ...(plan.dueMs ? { nextAttemptAt: new Date(plan.dueMs).toISOString() } : {}) } : delivery;
    });
    // one event, one workspace: the log is trimmed, and the pending bound kept, in the same commit
    const expired = this.outbox.expireOps(
      event.workspaceId,
      subscriptions.map((s) => s.id),
      this.ctx.options.webhookMaxPending,
      now,
    );
    await this.ctx.store.commit([...this.outbox.trimOps(event.workspaceId, deliveries.length), ...expired.ops, ...deliveries.map((d) => this.outbox.putOp(d))]);
    for (const id of expired.ids) this.timers.forget(id);
    // Sent once the outbox rows are durable, which, for an event a request caused, is with that
    // request's whole commit (docs/storage.md, "One request, one commit"): a receiver never hears
    // of a write a crash then undoes. Not awaited here: the request's own close is what flushes.
    const durable = this.ctx.store.flush().catch(() => undefined); // a failed write: pending rows are sent after a restart
    for (const d of deliveries) this.sendWhenDue(d, durable);
    return deliveries.map((d) => d.id);
  }

  /** The first attempt: at once, or, held by a rule, when the clock reaches its time (at once if it already has). */
  private sendWhenDue(d: StoredDelivery, durable: Promise<unknown>): void {
    const dueMs = Date.parse(d.nextAttemptAt ?? d.createdAt);
    if (d.fault && dueMs > this.ctx.clock.nowIn(d.workspaceId)) this.timers.schedule(d, dueMs, durable);
    else void this.work.track(durable.then(() => this.attempt(d.workspaceId, d.id, 'initial')));
  }

  /**
   * Removing delivery rules releases what they hold: each delivery a rule still holds back (and
   * each duplicate waiting for its time) is sent now, one after another in the order they were
   * made, and says so (`releasedAt`). `ruleIds`: the rules removed, or null for every rule, those
   * whose `times` ran out included (`fault clear`). Answers how many were sent.
   */
  async releaseHeld(ruleIds: ReadonlySet<string> | null): Promise<number> {
    const held = this.outbox
      .pending()
      .filter((d) => isHeld(d) && (ruleIds === null || ruleIds.has(d.fault!.ruleId)))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    if (held.length === 0) return 0;
    const released = held.map((d) => {
      this.timers.forget(d.id);
      const now = this.ctx.clock.isoIn(d.workspaceId);
      return { ...d, nextAttemptAt: now, updatedAt: now, fault: { ...d.fault!, releasedAt: now } };
    });
    await this.ctx.store.commit(released.map((d) => this.outbox.putOp(d)));
    for (const d of released) await this.work.track(this.attempt(d.workspaceId, d.id, 'initial'));
    return released.length;
  }

  private reschedulePending(): void {
    for (const d of this.outbox.pending()) {
      const now = this.ctx.clock.nowIn(d.workspaceId);
      this.timers.schedule(d, Math.max(d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : now, now));
    }
  }

  /** Attempts on one delivery never overlap (a replay during a retry waits its turn). */
  private attempt(workspaceId: string, id: string, trigger: Trigger): Promise<StoredDelivery | undefined> {
    return this.work.locked(id, () => this.attemptNow(workspaceId, id, trigger));
  }

  private async attemptNow(workspaceId: string, id: string, trigger: Trigger): Promise<StoredDelivery | undefined> {
    const delivery = this.outbox.row(workspaceId, id);
    if (!delivery || this.stopping.signal.aborted) return delivery;
    if (trigger !== 'replay' && delivery.status !== 'pending') return delivery;
    const subscription = this.ctx.subscriptions.get(workspaceId, delivery.subscriptionId);
    if (!subscription || (!subscription.active && trigger !== 'replay')) {
      return this.cancel(delivery, subscription ? stoppedReason(subscription) : 'subscription deleted');
    }
    const at = this.ctx.clock.iso();
    // a duplicate is signed afresh with the webhook-id of the delivery it repeats
    const webhookId = webhookIdOf(delivery);
    const signature = signatureHeaders(subscription.secret, webhookId, wallClockSeconds(), delivery.body);
    const headers = requestHeaders(webhookId, subscription.headers, signature['webhook-timestamp'], signature['webhook-signature']);
    const attempt = (result: SendResult) =>
      storedAttempt(delivery, {
        number: delivery.attempts.length + 1,
        trigger,
        at,
        url: subscription.url,
        customHeaders: subscription.headers,
        signature,
        result,
      });
    if (trigger !== 'replay' && dropsFirstAttempt(delivery)) {
      return this.record(workspaceId, id, attempt({ response: null, latencyMs: 0, error: droppedError(delivery.fault!.ruleId) }));
    }
    // a held delivery says which later events went first: the ones tried before this attempt
    const overtaken = trigger !== 'replay' && isHeld(delivery) ? overtakers(this.outbox.inWorkspace(workspaceId), delivery) : undefined;
    let result;
    const release = await this.slots.acquire(subscription.id);
    try {
      if (this.stopping.signal.aborted) return delivery;
      result = await sendGuarded(this.ctx.selfGuard, {
        url: subscription.url,
        headers,
        body: delivery.body,
        timeoutMs: this.timeoutMs,
        signal: this.stopping.signal,
      });
    } catch (err) {
      if (err instanceof AttemptAborted) return delivery; // left pending; rescheduled on the next start
      throw err;
    } finally {
      release();
    }
    return this.record(delivery.workspaceId, delivery.id, attempt(result), overtaken);
  }

  private async cancel(delivery: StoredDelivery, reason: string): Promise<StoredDelivery> {
    const cancelled: StoredDelivery = { ...delivery, status: 'cancelled', reason, nextAttemptAt: null, updatedAt: this.ctx.clock.iso() };
    await this.ctx.store.commit([this.outbox.putOp(cancelled)]);
    return cancelled;
  }

  /**
   * Writes the attempt, the delivery's next state and the subscription's bookkeeping in one
   * commit; `faultNote` adds to the delivery's fault record (what overtook a held delivery).
   */
  private async record(workspaceId: string, id: string, attempt: StoredAttempt, faultNote?: Partial<DeliveryFault>): Promise<StoredDelivery | undefined> {
    const delivery = this.outbox.row(workspaceId, id);
    if (!delivery) return undefined; // reset while the request was in flight
    const sub = this.ctx.subscriptions.get(workspaceId, delivery.subscriptionId);
    const { next, subscription, retryAt } = settle(delivery, sub, attempt, this.ctx.clock.now(), this.ctx.options.webhookRetryScale);
    const duplicate = duplicateDue(delivery, attempt.trigger) ? duplicateOf(delivery, this.ctx.clock.now()) : null;
    if (next.fault && (faultNote || duplicate)) next.fault = { ...next.fault, ...faultNote, ...(duplicate ? { duplicateId: duplicate.id } : {}) };
    const ops: Op[] = subscription ? this.ctx.subscriptions.healthOps(workspaceId, subscription.id, healthOf(subscription)) : [];
    // A burst enqueues faster than attempts finish, so trimming only as deliveries
    // arrive would leave the whole burst in the log once it settles: trim as they
    // finish too, once per batch (each trim looks through the partition).
    if (next.status !== 'pending' && delivery.status === 'pending') {
      const finished = (this.finishedSinceTrim.get(workspaceId) ?? 0) + 1;
      this.finishedSinceTrim.set(workspaceId, finished % DELIVERY_LOG_TRIM_BATCH);
      if (finished >= DELIVERY_LOG_TRIM_BATCH) ops.push(...this.outbox.trimOps(workspaceId, 0));
    }
    ops.push(this.outbox.putOp(next));
    const committed = this.ctx.store.commit(ops);
    // the duplicate in a commit of its own, applied right after, so that the pending bound it
    // counts toward sees its original as this attempt left it
    const duplicated = duplicate ? this.writeDuplicate(duplicate) : undefined;
    await committed;
    await duplicated;
    this.ctx.bus.emit('delivery', deliveryUpdate(next, sub, attempt));
    if (next.status !== 'pending') {
      this.timers.forget(id);
    } else if (retryAt !== null && !this.stopping.signal.aborted) {
      this.timers.schedule(next, retryAt);
    }
    if (duplicate && !this.stopping.signal.aborted) this.sendWhenDue(duplicate, Promise.resolve());
    return next;
  }

  /** A duplicate is one more pending delivery: it counts toward webhookMaxPending as a new event's does. */
  private writeDuplicate(duplicate: StoredDelivery): Promise<void> {
    const expired = this.outbox.expireOps(duplicate.workspaceId, [duplicate.subscriptionId], this.ctx.options.webhookMaxPending, duplicate.createdAt);
    const done = this.ctx.store.commit([...this.outbox.trimOps(duplicate.workspaceId, 1), ...expired.ops, this.outbox.putOp(duplicate)]);
    for (const expiredId of expired.ids) this.timers.forget(expiredId);
    return done;
  }
}
