import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { DepartureSchema } from './schemas.ts';

/**
 * GET /__sandbox/workspaces/:id/departures/bookable: `/v1` lists no departures (the API
 * description has only GET /v1/departures/:id), so a first booking asks the control plane for
 * one it can take today, the one `sandbox start`'s banner offers (served by ./control.ts;
 * docs/control-plane.md, "Workspaces on demand"; the README's first booking).
 */
export const BookableDepartureSchema = z.object({ departure: DepartureSchema, productTitle: z.string() }).meta({ id: 'BookableDeparture' });

export const DEPARTURE_CONTROL_ROUTES = defineRoutes({
  bookableDeparture: {
    method: 'GET',
    path: '/workspaces/:id/departures/bookable',
    params: z.object({ id: z.string() }),
    query: z.object({
      seats: z.coerce.number().int().min(1).max(500).default(1).describe('seats the booking takes (adults and children); default 1'),
    }),
    data: BookableDepartureSchema,
    errors: [400, 404],
    // derived, it would read listSandboxWorkspaceDeparturesBookable: it answers one departure
    operationId: 'getSandboxWorkspaceBookableDeparture',
    summary:
      'The first departure of a workspace a booking of `seats` can take today (its product active, not cancelled, departed or sold out), in stored order',
  },
});
