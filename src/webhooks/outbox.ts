import { z } from 'zod';
import { defineCollection, type Repository } from '../storage/collection.ts';
import type { Op, Store } from '../storage/types.ts';

/**
 * The durable outbox: one row per (event, subscription) in the
 * `webhookDeliveries` collection, partitioned by workspace, holding the signed
 * body and every attempt. A delivery is written before its first attempt, so a
 * sandbox killed at any point finds its pending deliveries on the next start
 * (docs/webhooks.md, "Durability").
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const ATTEMPT_TRIGGERS = ['initial', 'retry', 'replay'] as const;

export const AttemptSchema = z.object({
  number: z.number().int().min(1),
  trigger: z.enum(ATTEMPT_TRIGGERS),
  at: z.iso.datetime().describe('sandbox clock'),
  request: z.object({ url: z.string(), headers: z.record(z.string(), z.string()), body: z.string() }),
  response: z
    .object({ status: z.number().int(), headers: z.record(z.string(), z.string()), bodyExcerpt: z.string() })
    .nullable()
    .describe('null when no response arrived (timeout, refused, ...)'),
  latencyMs: z.number().min(0),
  error: z.string().nullable(),
});
export type Attempt = z.infer<typeof AttemptSchema>;

export const DeliverySchema = z.object({
  id: z.string().describe('shape dlv_<uuid>; also the webhook-id header, stable across retries and replays'),
  workspaceId: z.string(),
  subscriptionId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  reason: z.string().nullable().describe('why a delivery failed or was cancelled'),
  retries: z.number().int().min(0).describe('automatic retries made so far'),
  nextAttemptAt: z.iso.datetime().nullable(),
  body: z.string().describe('the raw JSON body, byte-for-byte what is signed and sent'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  attempts: z.array(AttemptSchema),
}).meta({ id: 'Delivery' });
export type Delivery = z.infer<typeof DeliverySchema>;

/** The outbox's collection, owned by the webhooks area (src/resources/webhooks/collections.ts). */
export const WEBHOOK_DELIVERIES = defineCollection({ name: 'webhookDeliveries', schema: DeliverySchema, idPrefix: 'dlv', copied: false });

export interface DeliveryFilter {
  workspaceId?: string | undefined;
  subscriptionId?: string | undefined;
  eventType?: string | undefined;
  status?: DeliveryStatus | undefined;
}

/**
 * Finished deliveries (succeeded, failed, cancelled) kept per workspace, the
 * newest; older ones are dropped in batches of DELIVERY_LOG_TRIM_BATCH as new
 * deliveries arrive and, every batch, as they finish. Pending deliveries are work still to do and are never
 * dropped (docs/webhooks.md, "The delivery log").
 */
export const DELIVERY_LOG_LIMIT = 1_000;
export const DELIVERY_LOG_TRIM_BATCH = 100;

export class Outbox {
  private readonly rows: Repository<Delivery>;

  constructor(store: Store) {
    this.rows = WEBHOOK_DELIVERIES.in(store);
  }

  putOp(delivery: Delivery): Op {
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

  get(workspaceId: string, id: string): Delivery | undefined {
    return this.rows.get(workspaceId, id);
  }

  /** The control plane knows only the id; deliveries are few enough to look through each partition. */
  find(id: string): Delivery | undefined {
    for (const workspaceId of this.rows.partitions()) {
      const found = this.get(workspaceId, id);
      if (found) return found;
    }
    return undefined;
  }

  pending(): Delivery[] {
    return this.all().filter((d) => d.status === 'pending');
  }

  /** Newest first. */
  list(filter: DeliveryFilter): Delivery[] {
    const rows = filter.workspaceId ? [...this.rows.list(filter.workspaceId)] : this.all();
    return rows
      .filter((d) => (!filter.subscriptionId || d.subscriptionId === filter.subscriptionId)
        && (!filter.eventType || d.eventType === filter.eventType)
        && (!filter.status || d.status === filter.status))
      .sort((a, b) => (a.createdAt === b.createdAt ? 0 : a.createdAt < b.createdAt ? 1 : -1));
  }

  private all(): Delivery[] {
    return this.rows.partitions().flatMap((workspaceId) => [...this.rows.list(workspaceId)]);
  }
}
