import { analyticsResource } from './analytics/index.ts';
import { bookingsResource } from './bookings/index.ts';
import { catalogResource } from './catalog/index.ts';
import { collectionMatchesResource } from './collections-matches/index.ts';
import { departuresResource } from './departures/index.ts';
import { peopleResource } from './people/index.ts';
import { formsResource } from './forms/index.ts';
import { galleryResource } from './gallery/index.ts';
import { organizationsResource } from './organizations/index.ts';
import { policiesResource } from './policies/index.ts';
import { productsResource } from './products/index.ts';
import type { BackgroundService } from '../context.ts';
import { CORE_COLLECTIONS_FIRST, CORE_COLLECTIONS_LAST } from '../core/collections.ts';
import { CollectionRegistry, type Store } from '../storage/index.ts';
import type { ResourceModule } from './types.ts';
import type { SampleEvents } from '../webhooks/sample-data.ts';
import { NO_SUBSCRIPTIONS, type SubscriptionSource } from '../webhooks/subscriptions.ts';
import { verificationResource } from './verification/index.ts';
import { webhooksResource } from './webhooks/index.ts';

/**
 * Every area of the API, in one explicit list (no directory magic): a reader
 * sees the whole surface here. Each module registers its routes under /v1 and
 * declares its collections, control-plane part and background services; the
 * registries below are derived from this list, never kept beside it. Adding an
 * area is one folder plus one line here (docs/architecture.md).
 */
export const RESOURCES: readonly ResourceModule[] = [
  productsResource,
  formsResource,
  webhooksResource,
  organizationsResource,
  policiesResource,
  galleryResource,
  analyticsResource,
  verificationResource,
  catalogResource,
  collectionMatchesResource,
  departuresResource,
  bookingsResource,
  peopleResource,
];

/** Every stored collection: the core's bookkeeping around the areas' own (src/core/collections.ts). */
export function collectionsOf(modules: readonly ResourceModule[]): CollectionRegistry {
  return new CollectionRegistry([...CORE_COLLECTIONS_FIRST, ...modules.flatMap((m) => m.collections), ...CORE_COLLECTIONS_LAST]);
}

/** The background services of the areas, in list order. */
export function servicesOf(modules: readonly ResourceModule[]): readonly BackgroundService[] {
  return modules.flatMap((m) => m.services ?? []);
}

/** The areas' sample event data, by family; a family is sampled by one area. */
export function samplesOf(modules: readonly ResourceModule[]): SampleEvents {
  const samples: Record<string, SampleEvents[string]> = {};
  for (const m of modules) {
    for (const [family, sample] of Object.entries(m.sampleEvents ?? {})) {
      if (family in samples) throw new Error(`two areas sample the ${family} events; area ${m.name} is the second`);
      samples[family] = sample;
    }
  }
  return samples;
}

/** The webhook engine's subscriptions: the one area that stores them, or none (no area, no deliveries). */
export function subscriptionsOf(modules: readonly ResourceModule[], store: Store): SubscriptionSource {
  const providers = modules.filter((m) => m.webhookSubscriptions);
  if (providers.length > 1) throw new Error(`two areas store webhook subscriptions: ${providers.map((m) => m.name).join(', ')}`);
  return providers[0]?.webhookSubscriptions?.(store) ?? NO_SUBSCRIPTIONS;
}

/** The collections of the standard sandbox (fixtures, record schemas, tests). */
export const COLLECTION_REGISTRY: CollectionRegistry = collectionsOf(RESOURCES);
