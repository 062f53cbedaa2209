import type { Clock } from '../core/clock.ts';
import type { EventBus } from '../core/events.ts';
import type { FaultInjector } from '../core/faults.ts';
import type { SelfGuard } from '../core/self-guard.ts';
import type { ResolvedOptions } from '../config.ts';
import type { RunReportCounters } from '../report/run-report.ts';
import { samplesOf, subscriptionsOf } from '../resources/index.ts';
import type { ResourceModule } from '../resources/types.ts';
import type { Store } from '../storage/index.ts';
import { WebhookDispatcher } from '../webhooks/dispatcher.ts';

/**
 * The webhook engine (src/webhooks/), over the subscriptions the webhooks area gives it and the
 * sample event data every area declares (the engine knows no area). Started by the webhooks area's background
 * service; its deliveries are counted in the run report.
 */
export function buildWebhooks(
  resources: readonly ResourceModule[],
  parts: { store: Store; clock: Clock; bus: EventBus; selfGuard: SelfGuard; faults: FaultInjector; options: ResolvedOptions; runReport: RunReportCounters },
): WebhookDispatcher {
  const { store, bus, runReport } = parts;
  bus.on('delivery', (update) => runReport.delivery(update));
  return new WebhookDispatcher({ ...parts, subscriptions: subscriptionsOf(resources, store), samples: samplesOf(resources) });
}
