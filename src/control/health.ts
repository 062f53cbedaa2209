import type { SandboxContext } from '../context.ts';
import { registerControlScope } from '../http/control-scope.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from './contract.ts';
import { HEALTH_ROUTES } from './contracts/health.ts';

/**
 * GET /__sandbox/health in the listening app, with the control plane's scope
 * (token, clock): a readiness probe must not wait for the rest of the control
 * plane, which is built on its first request (src/http/control-forward.ts).
 * Register under the /__sandbox prefix.
 */
export function registerHealth(app: ZodApp, ctx: SandboxContext): void {
  registerControlScope(app, ctx);
  serveAll(app, HEALTH_ROUTES, {
    health: async () => ({ status: 'ok' as const, uptimeMs: Date.now() - ctx.startedAtMs, now: ctx.clock.iso() }),
  });
}
