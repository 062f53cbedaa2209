import type { ResourceModule } from '../types.ts';
import { registerGalleryRoutes } from './routes.ts';
import { GalleryService } from './service.ts';

export const galleryResource: ResourceModule = {
  name: 'gallery',
  register(app, ctx) {
    registerGalleryRoutes(app, new GalleryService(ctx.store, ctx.clock, ctx.options.galleryDeletionDelayMs));
  },
};
