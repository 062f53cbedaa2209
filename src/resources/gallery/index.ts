import { GALLERY_FILES, GALLERY_FOLDERS } from './collections.ts';
import { galleryDeletionService } from './deletion-job.ts';
import type { ResourceModule } from '../types.ts';
import { registerGalleryRoutes } from './routes.ts';
import { GalleryService } from './service.ts';
import { GALLERY_SAMPLE_EVENTS } from './sample-events.ts';

export const galleryResource: ResourceModule = {
  name: 'gallery',
  collections: [GALLERY_FOLDERS, GALLERY_FILES],
  routes(app, ctx) {
    registerGalleryRoutes(app, new GalleryService(ctx.store, ctx.clock, ctx.options.galleryDeletionDelayMs));
  },
  services: [galleryDeletionService],
  sampleEvents: GALLERY_SAMPLE_EVENTS,
};
