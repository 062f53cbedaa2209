import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { CreatePersonBodySchema } from './requests.ts';
import { PersonSchema } from './schemas.ts';

/**
 * POST /__sandbox/workspaces/:id/people: the API description names no
 * endpoint that creates people, so the sandbox creates them here (served by
 * ./control.ts; docs/bookings.md).
 */
export const PEOPLE_CONTROL_ROUTES = defineRoutes({
  createPerson: {
    method: 'POST',
    path: '/workspaces/:id/people',
    params: z.object({ id: z.string() }),
    body: CreatePersonBodySchema,
    data: PersonSchema,
    statuses: [201],
    errors: [400, 404, 409],
    summary: 'Create a person (customer) in a workspace',
  },
});
