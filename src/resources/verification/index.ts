import { VERIFICATIONS } from './collections.ts';
import type { ResourceModule } from '../types.ts';
import { registerVerificationRoutes } from './routes.ts';
import { VerificationService } from './service.ts';

export const verificationResource: ResourceModule = {
  name: 'verification',
  collections: [VERIFICATIONS],
  routes(app, ctx) {
    registerVerificationRoutes(app, new VerificationService(ctx.store, ctx.clock), ctx.options.strict);
  },
  control: () => import('./control.ts').then((m) => m.registerVerificationControl),
};
