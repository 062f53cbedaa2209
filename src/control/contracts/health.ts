import { z } from 'zod';
import { defineRoutes } from '../contract.ts';

export const HealthSchema = z.object({ status: z.literal('ok'), uptimeMs: z.number(), now: z.string() });

/**
 * GET /__sandbox/health, a group of its own: the listening app serves it
 * (src/control/health.ts), so a readiness probe is answered as soon as the
 * sandbox listens, without building the rest of the control plane (issue 11).
 */
export const HEALTH_ROUTES = defineRoutes({
  health: { method: 'GET', path: '/health', data: HealthSchema, summary: 'Ready for traffic: status, uptime and the sandbox time' },
});
