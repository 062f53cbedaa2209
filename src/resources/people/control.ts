import type { SandboxContext } from '../../context.ts';
import { serve } from '../../http/route-table/serve.ts';
import { requireWorkspace } from '../../core/workspace-lookup.ts';
import type { ZodApp } from '../types.ts';
import { PEOPLE_CONTROL_ROUTES } from './control-contract.ts';
import { PeopleService } from './service.ts';

/**
 * POST /__sandbox/workspaces/:id/people: the API description names no
 * endpoint that creates people, so the sandbox creates them here (answer 201
 * {data: person}; emits `customer.created`). Documented in docs/bookings.md.
 */
export function registerPeopleControl(app: ZodApp, ctx: SandboxContext): void {
  const people = new PeopleService(ctx.store, ctx.clock, ctx.bus);
  serve(app, PEOPLE_CONTROL_ROUTES.createPerson, async (request) => {
    const workspace = requireWorkspace(ctx, request.params.id);
    return people.create(workspace.id, request.body);
  });
}
