import type { SandboxContext } from './context.ts';
import { idempotencyPurgeService } from './core/idempotency-purge.ts';
import { galleryDeletionService } from './resources/gallery/deletion-job.ts';
import { orgKeyUsageService } from './resources/organizations/usage.ts';
import { webhookDispatcherService } from './webhooks/service.ts';

/**
 * Background services (webhook dispatcher, gallery deletion jobs, ...), in one
 * explicit list. Each starts after the store is open and before the server
 * listens, and is stopped before the store closes. They schedule work on the
 * sandbox clock, never on timers of their own, and react to the event bus.
 */
export interface BackgroundService {
  name: string;
  start(ctx: SandboxContext): Promise<RunningService> | RunningService;
}

export interface RunningService {
  stop(): Promise<void> | void;
  /** called after a reset or snapshot restore replaced the store's state */
  afterReset?(): Promise<void> | void;
}

export const SERVICES: readonly BackgroundService[] = [webhookDispatcherService, galleryDeletionService, orgKeyUsageService, idempotencyPurgeService];
