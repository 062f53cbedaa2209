import type { BackgroundService } from '../context.ts';
import { registerDispatcher, WebhookDispatcher } from './dispatcher.ts';

/** The webhook dispatcher as a background service, declared by the webhooks area (src/resources/webhooks/index.ts). */
export const webhookDispatcherService: BackgroundService = {
  name: 'webhooks',
  start(ctx) {
    const dispatcher = new WebhookDispatcher(ctx);
    registerDispatcher(ctx, dispatcher);
    dispatcher.start();
    return { stop: () => dispatcher.stop(), afterReset: () => dispatcher.afterReset() };
  },
};
