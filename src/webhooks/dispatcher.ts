import { conflict } from '../core/errors.ts';
import type { Clock } from '../core/clock.ts';
import type { DomainEvent, EventBus } from '../core/events.ts';
import type { SelfGuard } from '../core/self-guard.ts';
import { newId } from '../core/ids.ts';
import type { Op, Store } from '../storage/index.ts';
import { isCatalogueEvent, type WebhookEventType } from './catalogue.ts';
import { AttemptAborted } from './delivery.ts';
import { requestHeaders, storedAttempt, type StoredAttempt } from './attempt-record.ts';
import { sendGuarded } from './guarded-send.ts';
import { matchesAny } from './matching.ts';
import { DELIVERY_LOG_TRIM_BATCH, Outbox, type StoredDelivery, WEBHOOK_DELIVERIES } from './outbox.ts';
import { deliveryUpdate, settle } from './attempt-outcome.ts';
import { stoppedReason } from './subscription-health.ts';
import { signatureHeaders, wallClockSeconds } from './signing.ts';
import { sampleEventData, type EventData, type SampleEvents } from './sample-data.ts';
import { healthOf, type SubscriptionSource } from './subscriptions.ts';
import { SubscriptionSlots } from './subscription-slots.ts';

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
  private readonly timers = new Map<string, () => void>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly enqueued = new Map<string, Promise<string[]>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** per workspace: deliveries finished since the log was last trimmed on finishing */
  private readonly finishedSinceTrim = new Map<string, number>();
  /** per subscription: attempts sending now, and the ones waiting for a slot */
  private readonly slots = new SubscriptionSlots();
  private stopping = new AbortController();
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly ctx: DispatcherDeps,
    readonly timeoutMs = ctx.options.webhookTimeoutMs,
  ) {
    this.outbox = new Outbox(ctx.store);
  }

  start(): void {
    this.unsubscribe = this.ctx.bus.on('domain', (event) => this.onEvent(event));
    this.reschedulePending();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.cancelTimers();
    this.stopping.abort();
    await this.idle();
  }

  /** The store was replaced (reset, snapshot restore): forget timers, pick up whatever is pending now. */
  afterReset(): void {
    this.cancelTimers();
    this.reschedulePending();
  }

  /** Resolves when the delivery work running now has ended (a retry scheduled); not what starts meanwhile (src/control/clock-next.ts). */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.inFlight]);
  }

  /** Resolves when no delivery work is running (tests, benchmarks, replay). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
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
    return this.track(this.attempt(delivery.workspaceId, delivery.id, 'replay'));
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
        this.forgetTimer(d.id);
        return this.track(
          this.locked(d.id, async () => {
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
    const work = this.track(this.enqueue(event));
    this.enqueued.set(event.id, work);
    void work.finally(() => this.enqueued.delete(event.id));
  }

  /** Paused subscriptions get nothing: events that arrive while inactive are never delivered. */
  private async enqueue(event: DomainEvent): Promise<string[]> {
    const subscriptions = this.ctx.subscriptions.list(event.workspaceId).filter((s) => s.active && matchesAny(s.events, event.type));
    if (subscriptions.length === 0) return [];
    const body = payloadOf(event);
    const now = this.ctx.clock.iso();
    const deliveries: StoredDelivery[] = subscriptions.map((s) => ({
      id: newId(WEBHOOK_DELIVERIES),
      workspaceId: event.workspaceId,
      subscriptionId: s.id,
      eventId: event.id,
      eventType: event.type,
      status: 'pending',
      reason: null,
      retries: 0,
      nextAttemptAt: now,
      body,
      url: s.url,
      headers: s.headers,
      createdAt: now,
      updatedAt: now,
      attempts: [],
    }));
    // one event, one workspace: the log is trimmed, and the pending bound kept, in the same commit
    const expired = this.outbox.expireOps(
      event.workspaceId,
      subscriptions.map((s) => s.id),
      this.ctx.options.webhookMaxPending,
      now,
    );
    await this.ctx.store.commit([...this.outbox.trimOps(event.workspaceId, deliveries.length), ...expired.ops, ...deliveries.map((d) => this.outbox.putOp(d))]);
    for (const id of expired.ids) this.forgetTimer(id);
    // Sent once the outbox rows are durable, which, for an event a request caused, is with that
    // request's whole commit (docs/storage.md, "One request, one commit"): a receiver never hears
    // of a write a crash then undoes. Not awaited here: the request's own close is what flushes.
    const durable = this.ctx.store.flush().catch(() => undefined); // a failed write: pending rows are sent after a restart
    for (const d of deliveries) void this.track(durable.then(() => this.attempt(d.workspaceId, d.id, 'initial')));
    return deliveries.map((d) => d.id);
  }

  private reschedulePending(): void {
    for (const d of this.outbox.pending()) {
      const now = this.ctx.clock.nowIn(d.workspaceId);
      this.schedule(d, Math.max(d.nextAttemptAt ? Date.parse(d.nextAttemptAt) : now, now));
    }
  }

  private schedule(delivery: StoredDelivery, atMs: number): void {
    this.timers.get(delivery.id)?.();
    const cancel = this.ctx.clock.schedule(
      atMs,
      () => {
        this.timers.delete(delivery.id);
        const trigger: Trigger = delivery.attempts.length === 0 ? 'initial' : 'retry';
        const work = this.track(this.attempt(delivery.workspaceId, delivery.id, trigger));
        // On a manual clock, advance() waits for the attempt, so one advance runs a whole chain of retries.
        return this.ctx.clock.mode === 'manual' ? work : undefined;
      },
      delivery.workspaceId,
      { label: `webhook ${delivery.attempts.length === 0 ? 'delivery' : 'retry'} ${delivery.id} (${delivery.eventType})` },
    ); // on the delivery's workspace clock, even when rescheduled after a reset
    this.timers.set(delivery.id, cancel);
  }

  private forgetTimer(id: string): void {
    this.timers.get(id)?.();
    this.timers.delete(id);
  }

  private cancelTimers(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  private track<T>(work: Promise<T>): Promise<T> {
    const settled = work.catch(() => undefined);
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
    return work;
  }

  /** Attempts on one delivery never overlap (a replay during a retry waits its turn). */
  private attempt(workspaceId: string, id: string, trigger: Trigger): Promise<StoredDelivery | undefined> {
    return this.locked(id, () => this.attemptNow(workspaceId, id, trigger));
  }

  /** Runs `work` on one delivery once the work before it on that delivery is done. */
  private locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(id, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.locks.get(id) === next) this.locks.delete(id);
      });
    return next;
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
    const signature = signatureHeaders(subscription.secret, delivery.id, wallClockSeconds(), delivery.body);
    const headers = requestHeaders(delivery.id, subscription.headers, signature['webhook-timestamp'], signature['webhook-signature']);
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
    const attempt = storedAttempt(delivery, {
      number: delivery.attempts.length + 1,
      trigger,
      at,
      url: subscription.url,
      customHeaders: subscription.headers,
      signature,
      result,
    });
    return this.record(delivery.workspaceId, delivery.id, attempt);
  }

  private async cancel(delivery: StoredDelivery, reason: string): Promise<StoredDelivery> {
    const cancelled: StoredDelivery = { ...delivery, status: 'cancelled', reason, nextAttemptAt: null, updatedAt: this.ctx.clock.iso() };
    await this.ctx.store.commit([this.outbox.putOp(cancelled)]);
    return cancelled;
  }

  /** Writes the attempt, the delivery's next state and the subscription's bookkeeping in one commit. */
  private async record(workspaceId: string, id: string, attempt: StoredAttempt): Promise<StoredDelivery | undefined> {
    const delivery = this.outbox.row(workspaceId, id);
    if (!delivery) return undefined; // reset while the request was in flight
    const sub = this.ctx.subscriptions.get(workspaceId, delivery.subscriptionId);
    const { next, subscription, retryAt } = settle(delivery, sub, attempt, this.ctx.clock.now(), this.ctx.options.webhookRetryScale);
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
    await this.ctx.store.commit(ops);
    this.ctx.bus.emit('delivery', deliveryUpdate(next, sub, attempt));
    if (next.status !== 'pending') {
      this.timers.get(id)?.();
      this.timers.delete(id);
    } else if (retryAt !== null && !this.stopping.signal.aborted) {
      this.schedule(next, retryAt);
    }
    return next;
  }
}
