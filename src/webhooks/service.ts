import type { BackgroundService } from '../services.ts';

/** The sandbox's webhook dispatcher (`ctx.webhooks`) as a background service (src/services.ts). */
export const webhookDispatcherService: BackgroundService = {
  name: 'webhooks',
  start({ webhooks }) {
    webhooks.start();
    return { stop: () => webhooks.stop(), afterReset: () => webhooks.afterReset() };
  },
};
