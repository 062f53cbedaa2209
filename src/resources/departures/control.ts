import type { SandboxContext } from '../../context.ts';
import { ApiError } from '../../core/errors.ts';
import { requireWorkspace } from '../../core/workspace-lookup.ts';
import { serve } from '../../http/route-table/serve.ts';
import type { ZodApp } from '../types.ts';
import { firstBookableDeparture } from './bookable.ts';
import { DEPARTURE_CONTROL_ROUTES } from './control-contract.ts';

/**
 * GET /__sandbox/workspaces/:id/departures/bookable?seats=n: the departure a booking of n seats
 * can take on the workspace's day, the first in stored order (so a fresh start offers what the
 * banner offers), or a 404 that says why there is none and how to get them back.
 */
export function registerDepartureControl(app: ZodApp, ctx: SandboxContext): void {
  serve(app, DEPARTURE_CONTROL_ROUTES.bookableDeparture, async (request) => {
    const workspace = requireWorkspace(ctx, request.params.id);
    const { seats } = request.query;
    const today = ctx.clock.isoIn(workspace.id).slice(0, 10);
    const found = firstBookableDeparture(ctx.store, workspace.id, today, seats);
    if (found) return found;
    throw new ApiError(404, {
      error: `No departure of workspace ${workspace.id} has ${seats} seat${seats === 1 ? '' : 's'} left from ${today} on: each is sold out, cancelled, departed or of an inactive product; POST /__sandbox/workspaces/${workspace.id}/reset puts the fixture departures back`,
    });
  });
}
