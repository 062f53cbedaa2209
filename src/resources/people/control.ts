import { z } from 'zod';
import type { SandboxContext } from '../../context.ts';
import { ErrorBodySchema, errorResponses } from '../../http/error-schemas.ts';
import { CreatePersonBodySchema } from './requests.ts';
import { PersonSchema } from './schemas.ts';
import { PeopleService } from './service.ts';
import type { ZodApp } from '../types.ts';
import { requireWorkspace } from '../../control/workspace-keys.ts';

/**
 * POST /__sandbox/workspaces/:id/people: the API description names no
 * endpoint that creates people, so the sandbox creates them here (answer 201
 * {data: person}; emits `customer.created`). Documented in docs/bookings.md.
 */
export function registerPeopleControl(app: ZodApp, ctx: SandboxContext): void {
  const people = new PeopleService(ctx.store, ctx.clock, ctx.bus);
  app.post('/workspaces/:id/people', {
    schema: {
      params: z.object({ id: z.string() }),
      body: CreatePersonBodySchema,
      response: { 201: z.object({ data: PersonSchema }), 400: errorResponses[400], 404: ErrorBodySchema, 409: ErrorBodySchema },
    },
    config: { summary: 'Create a person (customer) in a workspace' },
  }, async (request, reply) => {
    const workspace = requireWorkspace(ctx, request.params.id);
    return reply.code(201).send({ data: await people.create(workspace.id, request.body) });
  });
}
