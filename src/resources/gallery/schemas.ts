import { z } from 'zod';

/**
 * Gallery folders and files (API description, "Gallery folder", "Gallery
 * file"). Folders are documented (camelCase, bare UUID ids; `description` is
 * accepted on create "for future use" and stored). File fields beyond `id` and
 * `status` are "not shown" and inferred.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const GalleryFolderSchema = z.object({
  id: z.uuid(),
  workspaceId: z.string(),
  name: z
    .string()
    .min(1)
    .refine((name) => !name.includes('/'), 'A folder name cannot contain "/"'),
  parentId: z.uuid().nullable().describe('null at root level'),
  path: z.string().min(1).describe('slash-separated folder names from the root, e.g. Destinations/Iceland'),
  description: z.string().nullable().meta(inferred),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type GalleryFolder = z.infer<typeof GalleryFolderSchema>;

/** The `path` of a folder named `name` under a parent with `parentPath` (null at root). */
export const joinFolderPath = (parentPath: string | null, name: string): string => (parentPath === null ? name : `${parentPath}/${name}`);

export const GALLERY_FILE_STATUSES = ['active', 'deleting'] as const;

export const GalleryFileSchema = z.object({
  id: z.string().describe('shape gal_file_<uuid>'),
  workspaceId: z.string().meta(inferred),
  folderId: z.uuid().nullable().describe('null at root level').meta(inferred),
  filename: z.string().min(1).meta(inferred),
  mimeType: z
    .string()
    .regex(/^[a-z]+\/[a-z0-9.+-]+$/)
    .meta(inferred),
  sizeBytes: z.number().int().min(0).meta(inferred),
  width: z.number().int().min(1).nullable().meta(inferred),
  height: z.number().int().min(1).nullable().meta(inferred),
  url: z.url().meta(inferred),
  status: z.enum(GALLERY_FILE_STATUSES).describe('deleting: removal queued (DELETE returned 202)'),
  createdAt: z.iso.datetime().meta(inferred),
  updatedAt: z.iso.datetime().meta(inferred),
});
export type GalleryFile = z.infer<typeof GalleryFileSchema>;
