import { z } from 'zod';
import { notFound } from '../core/errors.ts';
import { FaultRuleInputSchema } from '../core/faults.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';

/** Fault injection routes: POST/GET/DELETE /__sandbox/faults (docs/control-plane.md). */
export function registerFaultRoutes(app: ZodApp, ctx: SandboxContext): void {
  app.post('/faults', { schema: { body: FaultRuleInputSchema, response: { 201: z.object({ data: z.unknown() }) } } }, async (request, reply) =>
    reply.code(201).send({ data: ctx.faults.add(request.body, ctx.clock.iso()) }),
  );
  app.get('/faults', async () => ({ data: ctx.faults.list() }));
  app.delete('/faults', async () => ({ data: { removed: ctx.faults.clear() } }));
  app.delete('/faults/:id', { schema: { params: z.object({ id: z.string() }) } }, async (request) => {
    const removed = ctx.faults.remove(request.params.id);
    if (!removed) throw notFound(`Fault ${request.params.id}`);
    return { data: removed };
  });
}
