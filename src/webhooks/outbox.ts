import { z } from 'zod';
import { newId } from '../core/ids.ts';
import { defineCollection, type Op, type Repository, type Store } from '../storage/index.ts';
import { AttemptSchema, attemptView, StoredAttemptSchema, type Attempt } from './attempt-record.ts';
import { DeliveryFaultSchema, DeliveryFaultViewSchema, faultView, webhookIdOf } from './delivery-fault-record.ts';

/**
 * The durable outbox: one row per (event, subscription) in the
 * `webhookDeliveries` collection, partitioned by workspace, holding the signed
 * body once and what each attempt changed (./attempt-record.ts). A delivery
 * is written before its first attempt, so a sandbox killed at any point finds
 * its pending deliveries on the next start (docs/webhooks.md, "Durable outbox").
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const ATTEMPT_TRIGGERS = ['initial', 'retry', 'replay'] as const;
export { AttemptSchema, type Attempt };

const deliveryFields = {
  id: z.string().describe('shape dlv_<uuid>; also the webhook-id header, stable across retries and replays'),
  workspaceId: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  reason: z.string().nullable().describe('why a delivery failed, was cancelled or expired'),
  retries: z.number().int().min(0).describe('automatic retries made so far'),
  nextAttemptAt: z.iso.datetime().nullable(),
  body: z.string().describe('the raw JSON body, byte-for-byte what is signed and sent'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

/** A delivery as the control plane shows it, each attempt with its request (docs/webhooks.md, "Control plane"). */
export const DeliverySchema = z
  .object({
    ...deliveryFields,
    webhookId: z.string().describe('the webhook-id header it is sent with: its id, or for a duplicate the id of the delivery it repeats'),
    fault: DeliveryFaultViewSchema.nullable().describe('what a delivery fault rule did to it; null when none touched it'),
    attempts: z.array(AttemptSchema),
  })
  .meta({ id: 'Delivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

/**
 * A delivery as stored: the body once, the subscription's URL and custom
 * headers when it was written, and light attempts (./attempt-record.ts).
 * `url` is absent, and attempts have the public shape, on rows of older database files (attempt-record.ts).
 */
export const StoredDeliverySchema = z.object({
  ...deliveryFields,
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).nullable().optional(),
  attempts: z.array(z.union([StoredAttemptSchema, AttemptSchema])),
  /** absent unless a delivery rule touched it (./delivery-fault-record.ts) */
  fault: DeliveryFaultSchema.optional(),
});
export type StoredDelivery = z.infer<typeof StoredDeliverySchema>;

export function deliveryView(row: StoredDelivery): Delivery {
  const { url: _url, headers: _headers, attempts, fault, ...fields } = row;
  const webhookId = webhookIdOf(row);
  const sent = { ...row, id: webhookId };
  return { ...fields, webhookId, fault: fault ? faultView(fault, attempts.length > 0) : null, attempts: attempts.map((a) => attemptView(sent, a)) };
}

/** The outbox's collection, owned by the webhooks area (src/resources/webhooks/collections.ts). */
export const WEBHOOK_DELIVERIES = defineCollection({ name: 'webhookDeliveries', schema: StoredDeliverySchema, idPrefix: 'dlv', copied: false });

/** A new delivery of an event to a subscription, pending its first attempt now, with the body and target it is sent with. */
export function pendingDelivery(
  event: { id: string; type: string; workspaceId: string },
  subscription: { id: string; url: string; headers: Record<string, string> | null },
  body: string,
  now: string,
): StoredDelivery {
  return {
    id: newId(WEBHOOK_DELIVERIES),
    workspaceId: event.workspaceId,
    subscriptionId: subscription.id,
    eventId: event.id,
    eventType: event.type,
    status: 'pending',
    reason: null,
    retries: 0,
    nextAttemptAt: now,
    body,
    url: subscription.url,
    headers: subscription.headers,
    createdAt: now,
    updatedAt: now,
    attempts: [],
  };
}

export interface DeliveryFilter {
  workspaceId?: string | undefined;
  subscriptionId?: string | undefined;
  eventType?: string | undefined;
  status?: DeliveryStatus | undefined;
}

/**
 * Finished deliveries (succeeded, failed, cancelled, expired) kept per workspace, the
 * newest; older ones are dropped in batches of DELIVERY_LOG_TRIM_BATCH as new
 * deliveries arrive and, every batch, as they finish. Pending deliveries are
 * work still to do and are never dropped here; expireOps bounds them per
 * subscription (docs/webhooks.md, "The delivery log").
 */
export const DELIVERY_LOG_LIMIT = 1_000;
export const DELIVERY_LOG_TRIM_BATCH = 100;

export class Outbox {
  private readonly rows: Repository<StoredDelivery>;

  constructor(store: Store) {
    this.rows = WEBHOOK_DELIVERIES.in(store);
  }

  putOp(delivery: StoredDelivery): Op {
    return this.rows.putOp(delivery.workspaceId, delivery);
  }

  /** Deletes for the oldest finished deliveries once `incoming` more would pass the bound plus a batch. */
  trimOps(workspaceId: string, incoming: number): Op[] {
    const rows = this.rows.list(workspaceId);
    if (rows.length + incoming < DELIVERY_LOG_LIMIT + DELIVERY_LOG_TRIM_BATCH) return [];
    let excess = rows.length + incoming - DELIVERY_LOG_LIMIT;
    const ops: Op[] = [];
    for (const row of rows) {
      if (excess <= 0) break;
      if (row.status === 'pending') continue;
      ops.push(this.rows.deleteOp(workspaceId, row.id));
      excess--;
    }
    return ops;
  }

  /**
   * Keeps each of these subscriptions under `limit` pending deliveries once one
   * more arrives: the oldest pending ones are marked expired, with the reason
   * (docs/webhooks.md, "Pending deliveries are bounded"). A receiver that fails
   * for days would otherwise keep every event it was ever sent.
   */
  expireOps(workspaceId: string, subscriptionIds: readonly string[], limit: number, at: string): { ops: Op[]; ids: string[] } {
    const ids = new Set(subscriptionIds);
    const pending = new Map<string, StoredDelivery[]>();
    for (const row of this.rows.list(workspaceId)) {
      if (row.status !== 'pending' || !ids.has(row.subscriptionId)) continue;
      let list = pending.get(row.subscriptionId);
      if (!list) pending.set(row.subscriptionId, (list = []));
      list.push(row);
    }
    const ops: Op[] = [];
    const expired: string[] = [];
    for (const rows of pending.values()) {
      // the partition keeps rows in the order they were written, so the first are the oldest
      for (const row of rows.slice(0, Math.max(0, rows.length + 1 - limit))) {
        const reason = `expired: ${limit.toLocaleString('en-US')} deliveries to this subscription were pending (webhookMaxPending) when a newer event came; the oldest is given up`;
        ops.push(this.putOp({ ...row, status: 'expired', reason, nextAttemptAt: null, updatedAt: at }));
        expired.push(row.id);
      }
    }
    return { ops, ids: expired };
  }

  /** One workspace's rows, in the order they were written. */
  inWorkspace(workspaceId: string): readonly StoredDelivery[] {
    return this.rows.list(workspaceId);
  }

  /** The stored row (the dispatcher's view). */
  row(workspaceId: string, id: string): StoredDelivery | undefined {
    return this.rows.get(workspaceId, id);
  }

  /** The control plane knows only the id; deliveries are few enough to look through each partition. */
  findRow(id: string): StoredDelivery | undefined {
    for (const workspaceId of this.rows.partitions()) {
      const found = this.row(workspaceId, id);
      if (found) return found;
    }
    return undefined;
  }

  pending(): StoredDelivery[] {
    return this.all().filter((d) => d.status === 'pending');
  }

  /** Newest first, as the control plane shows them. */
  list(filter: DeliveryFilter, limit = Infinity): Delivery[] {
    const rows = filter.workspaceId ? [...this.rows.list(filter.workspaceId)] : this.all();
    return rows
      .filter(
        (d) =>
          (!filter.subscriptionId || d.subscriptionId === filter.subscriptionId) &&
          (!filter.eventType || d.eventType === filter.eventType) &&
          (!filter.status || d.status === filter.status),
      )
      .sort((a, b) => (a.createdAt === b.createdAt ? 0 : a.createdAt < b.createdAt ? 1 : -1))
      .slice(0, limit)
      .map(deliveryView);
  }

  private all(): StoredDelivery[] {
    return this.rows.partitions().flatMap((workspaceId) => [...this.rows.list(workspaceId)]);
  }
}
