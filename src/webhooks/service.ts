import type { BackgroundService } from '../context.ts';

/**
 * The sandbox's webhook dispatcher (`ctx.webhooks`, built by createSandbox) as a
 * background service, declared by the webhooks area (src/resources/webhooks/index.ts).
 */
export const webhookDispatcherService: BackgroundService = {
  name: 'webhooks',
  start({ webhooks }) {
    webhooks.start();
    return { stop: () => webhooks.stop(), afterReset: () => webhooks.afterReset() };
  },
};
