import type { BackgroundService, SandboxContext } from '../context.ts';
import type { ZodApp } from '../http/zod-app.ts';
import type { Collection, Store } from '../storage/index.ts';
import type { SampleEvents } from '../webhooks/sample-data.ts';
import type { SubscriptionSource } from '../webhooks/subscriptions.ts';

export type { ZodApp };

/** A group of routes registered under one prefix (`/v1` or `/__sandbox`). */
export type RouteRegistrar = (app: ZodApp, ctx: SandboxContext) => void;

/**
 * One API area, a plugin: everything the sandbox needs to know about it, in
 * one place (docs/architecture.md, "Adding an area"). The explicit list in
 * resources/index.ts is the only registry; the collection names, id prefixes,
 * record schemas, background services and the area parts of the control plane
 * are all derived from it.
 */
export interface ResourceModule {
  name: string;
  /** the collections this area owns (name, row schema, id prefix) */
  collections: readonly Collection[];
  /** its public routes, registered under /v1 */
  routes: RouteRegistrar;
  /**
   * its part of the control plane, registered under /__sandbox after the control
   * plane's own routes (src/control/index.ts); its routes are declared in the area's
   * control-contract.ts, part of the one control route table (src/control/contracts/).
   * Loaded with the control plane, on its first request (`() => import('./control.ts')`),
   * so a start does not build its schemas.
   */
  control?: () => Promise<RouteRegistrar>;
  /** its background services (started after the store opens, stopped before it closes) */
  services?: readonly BackgroundService[];
  /**
   * the sample `data` of the webhook events it emits, by family (`booking` for booking.*), for
   * an event triggered without data (POST /__sandbox/events; src/webhooks/sample-data.ts)
   */
  sampleEvents?: SampleEvents;
  /** the subscriptions the webhook engine delivers to, over its stored ones (the webhooks area alone) */
  webhookSubscriptions?: (store: Store) => SubscriptionSource;
}
