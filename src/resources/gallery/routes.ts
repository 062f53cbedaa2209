import { z } from 'zod';
import { errorResponses } from '../../http/error-schemas.ts';
import type { ZodApp } from '../types.ts';
import { CreateFolderBodySchema, DeletionScheduledSchema, FileParamsSchema } from './requests.ts';
import { GalleryFolderSchema } from './schemas.ts';
import type { GalleryService } from './service.ts';

// module-level, so every sandbox of a process registers the very same schema objects and their
// OpenAPI document is built once (src/http/openapi-memo.ts)
const GalleryFolderEnvelopeSchema = z.object({ data: GalleryFolderSchema });

/**
 * API description, "Gallery": POST folders answers 201 `{data: folder}` (409 for
 * a duplicate name under the same parent); DELETE files answers 202
 * `{message, status: "scheduled", fileId}`. The `gallery:write` scope is the
 * sandbox's design.
 */
export function registerGalleryRoutes(app: ZodApp, service: GalleryService): void {
  app.post(
    '/gallery/folders',
    {
      schema: {
        body: CreateFolderBodySchema,
        response: { 201: GalleryFolderEnvelopeSchema, ...errorResponses, 409: errorResponses[404] },
      },
      config: { scope: 'gallery:write', documentedStatuses: [201, 409], summary: 'Create a gallery folder' },
    },
    async (request, reply) => reply.code(201).send({ data: await service.createFolder(request.principal, request.body) }),
  );

  app.delete(
    '/gallery/files/:id',
    {
      schema: { params: FileParamsSchema, response: { 202: DeletionScheduledSchema, ...errorResponses } },
      config: { scope: 'gallery:write', documentedStatuses: [202], summary: 'Schedule the deletion of a gallery file' },
    },
    async (request, reply) => reply.code(202).send(await service.deleteFile(request.principal, request.params.id)),
  );
}
