import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SandboxContext } from './context.ts';
import { registerHealth } from './control/health.ts';
import { registerRootIndex } from './control/where.ts';
import { registerApiScope } from './http/api-scope.ts';
import { createBaseApp } from './http/base-app.ts';
import { registerControlForward, type LazyControlPlane } from './http/control-forward.ts';
import type { Drain } from './http/drain.ts';
import { API_PREFIX, CONTROL_PREFIX } from './core/paths.ts';
import type { ResourceModule } from './resources/types.ts';

/**
 * Builds the app that listens: the root hooks (http/base-app.ts), each API
 * area's routes under /v1, the root index, and /__sandbox, which hands each
 * request to the control plane's own app, built on first use
 * (http/control-forward.ts): a start registers only what its first /v1
 * request needs (docs/benchmarks.md, "Start-up"). Only the health check is
 * served here, so a readiness probe does not build the control plane. A stop
 * drains the requests in flight first (http/drain.ts).
 */
export function buildApp(ctx: SandboxContext, resources: readonly ResourceModule[], controlPlane: LazyControlPlane, drain: Drain): FastifyInstance {
  const app = createBaseApp(ctx);
  // the listening app only: a /__sandbox request is tracked here, before its hand-over
  drain.register(app);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.register(
    async (v1) => {
      registerApiScope(v1, ctx);
      for (const resource of resources) resource.routes(v1, ctx);
    },
    { prefix: API_PREFIX },
  );
  typed.register(async (control) => registerHealth(control, ctx), { prefix: CONTROL_PREFIX });
  registerControlForward(app, controlPlane);
  registerRootIndex(typed);
  return app;
}
