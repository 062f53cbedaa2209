import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SandboxContext } from '../context.ts';
import { createBaseApp } from '../http/base-app.ts';
import { registerControlScope } from '../http/control-scope.ts';
import { CONTROL_PREFIX } from '../core/paths.ts';
import type { ResourceModule } from '../resources/types.ts';
import { registerControl } from './index.ts';

/**
 * The control plane's own app (docs/control-plane.md): the shared root hooks,
 * the /__sandbox scope (control token, per-workspace clock, 404) and every
 * control route. Loaded and built on the first /__sandbox request
 * (http/control-forward.ts); it never listens.
 */
export async function buildControlApp(ctx: SandboxContext, resources: readonly ResourceModule[]): Promise<FastifyInstance> {
  const app = createBaseApp(ctx);
  app.withTypeProvider<ZodTypeProvider>().register(
    async (control) => {
      registerControlScope(control, ctx);
      await registerControl(control, ctx, resources);
    },
    { prefix: CONTROL_PREFIX },
  );
  await app.ready();
  return app;
}
