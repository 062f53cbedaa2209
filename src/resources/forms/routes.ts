import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { CreateFormBodySchema, createFormWarnings } from './requests.ts';
import { FormSchema } from './schemas.ts';
import type { FormService } from './service.ts';

/** API description, "Forms": POST /v1/forms answers the bare form record (201: inferred). */
export function registerFormRoutes(app: ZodApp, service: FormService): void {
  app.post(
    '/forms',
    {
      schema: { body: CreateFormBodySchema, response: { 201: FormSchema, ...errorResponses, 409: errorResponses[404] } },
      config: { scope: 'forms:write', summary: 'Create a form', warnings: createFormWarnings },
    },
    async (request, reply) => reply.code(201).send(await service.create(request.principal, request.body)),
  );
}
