import type { Collection, Store, StoredRow } from '../storage/index.ts';
import type { WebhookEventType } from './catalogue.ts';

/**
 * Realistic `data` for an event triggered from the control plane without data
 * (POST /__sandbox/events): the workspace's most recent record of the right
 * kind, changed the way the event says (a cancelled booking is cancelled, a
 * published product is active). Each area declares the samples of the event
 * families it emits, in its folder (`sample-events.ts`), as its ResourceModule's
 * `sampleEvents`, registered like its routes: the engine knows no area.
 */
export type EventData = Record<string, unknown>;

/** The sample `data` of one event of a family; null when the workspace has no record to build from. */
export type SampleEventData = (store: Store, workspaceId: string, type: WebhookEventType, nowIso: string) => EventData | null;

/** By event family: `booking` for booking.created, booking.updated, ... */
export type SampleEvents = Readonly<Record<string, SampleEventData>>;

/** A copy of the workspace's most recent row of a collection, or null when it has none. */
export function latestRecord(collection: Collection<StoredRow>, store: Store, workspaceId: string): EventData | null {
  const rows = collection.in(store).list(workspaceId);
  const latest = rows[rows.length - 1];
  return latest ? structuredClone(latest) : null;
}

/** The sample data of an event, from the areas' samples; null when no area samples its family or there is no record. */
export function sampleEventData(samples: SampleEvents, store: Store, workspaceId: string, type: WebhookEventType, nowIso: string): EventData | null {
  const sample = samples[type.split('.')[0]!];
  return sample ? sample(store, workspaceId, type, nowIso) : null;
}
