import { z } from 'zod';

/**
 * POST /v1/gallery/folders (API description, "Gallery"): name required,
 * description optional (stored for future use), parentFolderId a uuid, omitted
 * (or null) for the root. Length limits are the sandbox's choice.
 */
export const CreateFolderBodySchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .refine((name) => !name.includes('/'), 'a folder name cannot contain "/" (paths are slash-separated)'),
  description: z.string().max(2000).nullable().optional(),
  parentFolderId: z.uuid().nullable().optional().describe('omit (or null) for a root folder'),
});
export type CreateFolderBody = z.infer<typeof CreateFolderBodySchema>;

export const FileParamsSchema = z.object({ id: z.string().describe('file id, gal_file_<uuid>') });

export const DeletionScheduledSchema = z.object({
  message: z.string(),
  status: z.literal('scheduled'),
  fileId: z.string(),
});
export type DeletionScheduled = z.infer<typeof DeletionScheduledSchema>;

/** A pending removal, kept in the `jobs` collection so it survives a restart. */
export const GALLERY_DELETE_JOB = 'gallery.file.delete';
export type GalleryDeleteJob = {
  id: string;
  kind: typeof GALLERY_DELETE_JOB;
  fileId: string;
  runAt: string;
  createdAt: string;
};
export const galleryDeleteJobId = (fileId: string) => `${GALLERY_DELETE_JOB}:${fileId}`;
