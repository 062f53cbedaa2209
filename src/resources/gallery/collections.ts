import { defineCollection } from '../../storage/index.ts';
import { GalleryFileSchema, GalleryFolderSchema } from './schemas.ts';

/** The gallery area's stored collections (ResourceModule.collections); folder ids are bare UUIDs. */
export const GALLERY_FOLDERS = defineCollection({ name: 'galleryFolders', schema: GalleryFolderSchema, idPrefix: null, reseeded: true });
export const GALLERY_FILES = defineCollection({ name: 'galleryFiles', schema: GalleryFileSchema, idPrefix: 'gal_file' });
