import { hostname } from 'node:os';
import type { SandboxContext } from '../context.ts';
import { conflict } from '../core/errors.ts';
import { registerControlScope } from '../http/control-scope.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
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
    health: async () => ({
      status: 'ok' as const,
      uptimeMs: Date.now() - ctx.startedAtMs,
      now: ctx.clock.iso(),
      ...(ctx.readOnly.reason !== null ? { readOnly: ctx.readOnly.reason } : {}),
    }),
    // the same stop as SIGTERM, run by the process that owns the sandbox (`sandbox start` sets
    // the handler); it begins once this answer is on its way, and the drain lets it finish
    stop: async () => {
      const handler = ctx.stopRequest.handler;
      if (!handler)
        throw conflict(
          'CONTROL_CONFLICT',
          'This sandbox was started by createSandbox() in another program, which stops it with sandbox.stop(); only a `sandbox start` sandbox stops over HTTP',
        );
      setImmediate(handler);
      return { stopping: true as const, pid: process.pid, hostname: hostname(), stopTimeoutMs: ctx.options.stopTimeoutMs };
    },
  });
}
