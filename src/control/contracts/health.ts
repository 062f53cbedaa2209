import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';

export const HealthSchema = z.object({
  status: z.literal('ok'),
  uptimeMs: z.number(),
  now: z.string(),
  /** a sandbox serving a bundle (`sandbox open`): why it refuses writes; the inspector shows it in a banner */
  readOnly: z.string().optional(),
});
/** POST /__sandbox/stop: the stop began; `pid` and `hostname` let `sandbox stop` wait for that process to end */
export const StopRequestSchema = z.object({ stopping: z.literal(true), pid: z.number(), hostname: z.string(), stopTimeoutMs: z.number() });

/**
 * GET /__sandbox/health, a group of its own: the listening app serves it
 * (src/control/health.ts), so a readiness probe is answered as soon as the
 * sandbox listens, without building the rest of the control plane.
 */
export const HEALTH_ROUTES = defineRoutes({
  health: { method: 'GET', path: '/health', data: HealthSchema, summary: 'Ready for traffic: status, uptime and the sandbox time' },
  stop: {
    method: 'POST',
    path: '/stop',
    data: StopRequestSchema,
    errors: [409],
    inferred: true,
    summary: 'Stop the sandbox as SIGTERM does (drain, flush, exit); `sandbox stop` sends it',
  },
});
