import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { PersonIdParamsSchema } from './requests.ts';
import { PersonSchema } from './schemas.ts';
import type { PeopleService } from './service.ts';

/** API description, "People": GET /v1/people/:id answers the bare person {id, firstName, lastName, ...}. */
export function registerPeopleRoutes(app: ZodApp, service: PeopleService): void {
  app.get(
    '/people/:id',
    {
      schema: { params: PersonIdParamsSchema, response: { 200: PersonSchema, ...errorResponses } },
      config: { scope: 'people:read', summary: 'Get a person (bare)' },
    },
    async (request) => service.get(request.principal.workspace.id, request.params.id),
  );
}
